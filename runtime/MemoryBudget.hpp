#pragma once
// Internal: the device memory netcl has allocated on one Context, and the cap
// a profile or the caller puts on it.
//
// Why a cap of netcl's own when the driver already refuses what does not fit:
// a framework shares the device with netcl, and a driver that overcommits
// (PoCL on a CPU; NVIDIA with unified memory) fails late, at the first kernel
// that touches the memory, far from the allocation. With a cap, the
// allocation itself fails with CL_MEM_OBJECT_ALLOCATION_FAILURE, early and
// the same on every driver, and a layer falls back to a plan that needs less.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace netcl {

class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
public:
    // Holds `bytes` of the budget until the last copy of the handle goes.
    // Throws netcl::Error (CL_MEM_OBJECT_ALLOCATION_FAILURE) when they would
    // take netcl past its limit; `what` names the allocation in that message.
    std::shared_ptr<void> reserve(std::size_t bytes, const std::string& what);

    void set_limit(std::size_t bytes);  // 0: no limit
    std::size_t limit() const;
    std::size_t in_use() const;

private:
    void give_back(std::size_t bytes);

    mutable std::mutex mutex_;
    std::size_t limit_ = 0;
    std::size_t in_use_ = 0;
};

}  // namespace netcl
