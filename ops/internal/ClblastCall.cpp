#include "ops/internal/ClblastCall.hpp"

#include "ops/internal/ClblastStatus.hpp"

namespace netcl::internal {

void enqueue_clblast(EventChain& chain, const cl::CommandQueue& queue,
                     const std::function<clblast::StatusCode(cl_command_queue*, cl_event*)>& routine,
                     const std::function<std::string()>& operation) {
    chain.library_call(queue, [&] {
        cl_command_queue clblast_queue = queue();
        cl_event event = nullptr;
        const clblast::StatusCode status = routine(&clblast_queue, &event);
        if (status != clblast::StatusCode::kSuccess) check_clblast(status, operation());
        return cl::Event(event);  // takes over CLBlast's reference
    });
}

}  // namespace netcl::internal
