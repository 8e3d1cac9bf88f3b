#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "DeviceProfile.hpp"
#include "OpenCL.hpp"

namespace netcl {

class ProgramCache;

// One OpenCL device as discovery finds it.
struct DeviceEntry {
    std::size_t platform_index = 0;
    std::size_t device_index = 0;
    cl::Platform platform;
    cl::Device device;
    DeviceProfile profile;  // device facts only
    std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

// An OpenCL context on one device, its in-order profiling queue and its
// program cache. Shared by every Tensor and op made on it.
class Context {
public:
    // NETCL_DEVICE picks the device when set ("1:0" or a case-insensitive
    // substring of platform, vendor or device name); otherwise the first GPU,
    // else the first CPU.
    static std::shared_ptr<Context> create();
    // `selector` as NETCL_DEVICE takes it; empty means the default device.
    static std::shared_ptr<Context> create(const std::string& selector);

    // Every device of every platform. Throws netcl::Error when there is no
    // OpenCL platform at all, saying how to install one.
    static std::vector<DeviceEntry> devices();
    // Index into `entries` of the device `selector` names (or the default).
    static std::size_t pick(const std::vector<DeviceEntry>& entries, const std::string& selector);
    static std::size_t default_index(const std::vector<DeviceEntry>& entries);

    explicit Context(const DeviceEntry& entry);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const cl::Context& cl_context() const { return context_; }
    const cl::Device& device() const { return device_; }
    const cl::CommandQueue& queue() const { return queue_; }
    const DeviceProfile& profile() const { return profile_; }
    // Replaces the profile the selector and strategies read (tuned values, or a
    // capped local memory to exercise fallbacks). The device itself is unchanged.
    void set_profile(DeviceProfile profile) { profile_ = std::move(profile); }
    ProgramCache& programs() { return *programs_; }
    const std::string& device_id() const { return device_id_; }

    void finish() const;  // blocks until the queue is empty

private:
    cl::Context context_;
    cl::Device device_;
    cl::CommandQueue queue_;
    DeviceProfile profile_;
    std::unique_ptr<ProgramCache> programs_;
    std::string device_id_;
};

// Reads the facts a device reports into a profile (tuned values empty).
DeviceProfile read_device_profile(const cl::Platform& platform, const cl::Device& device);

}  // namespace netcl
