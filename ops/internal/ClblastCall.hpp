#pragma once
// Internal: one CLBlast routine enqueued on a netcl chain. Includes clblast.h.
#include <clblast.h>

#include <functional>
#include <string>

#include "netcl/OpenCL.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

// `routine` runs on `queue` (CLBlast takes no wait list: the chain orders it
// after what is pending) and its event is recorded. A status other than
// kSuccess throws netcl::Error naming what `operation` returns, built only
// then: a layer's run makes many calls, and each would format its message.
void enqueue_clblast(EventChain& chain, const cl::CommandQueue& queue,
                     const std::function<clblast::StatusCode(cl_command_queue*, cl_event*)>& routine,
                     const std::function<std::string()>& operation);

}  // namespace netcl::internal
