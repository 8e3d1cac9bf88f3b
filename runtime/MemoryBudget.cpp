#include "runtime/MemoryBudget.hpp"

#include "netcl/Error.hpp"
#include "netcl/OpenCL.hpp"

namespace netcl {

std::shared_ptr<void> MemoryBudget::reserve(std::size_t bytes, const std::string& what) {
    {
        std::lock_guard lock(mutex_);
        if (limit_ != 0 && (bytes > limit_ || in_use_ > limit_ - bytes)) {
            throw Error(what, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                        "netcl holds " + std::to_string(in_use_) + " bytes on this Context and its limit is " +
                            std::to_string(limit_) + " (Context::set_memory_limit, profile key memory_limit_bytes)");
        }
        in_use_ += bytes;
    }
    // The handle owns nothing but the bytes it gives back; it keeps the
    // budget alive, so it may outlive the Context that made it.
    auto self = shared_from_this();
    return std::shared_ptr<void>(nullptr, [self, bytes](void*) { self->give_back(bytes); });
}

void MemoryBudget::give_back(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    in_use_ -= bytes;
}

void MemoryBudget::set_limit(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    limit_ = bytes;
}

std::size_t MemoryBudget::limit() const {
    std::lock_guard lock(mutex_);
    return limit_;
}

std::size_t MemoryBudget::in_use() const {
    std::lock_guard lock(mutex_);
    return in_use_;
}

}  // namespace netcl
