#include "netcl/Context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "netcl/Error.hpp"
#include "runtime/DeviceQuery.hpp"
#include "runtime/MemoryBudget.hpp"
#include "runtime/internal/Text.hpp"
#include "runtime/Log.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {

std::string device_list(const std::vector<DeviceEntry>& entries) {
    std::string text;
    for (const auto& e : entries) {
        text += "\n  " + e.id() + "  " + e.profile.vendor + " | " + e.profile.name + " (" +
                to_string(e.profile.type) + ", " + e.profile.platform_name + ")";
    }
    return text;
}

// "1:0" -> {1, 0}; anything else -> nothing.
bool parse_index(const std::string& text, std::size_t& platform, std::size_t& device) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
    const auto all_digits = [](const std::string& s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    const std::string p = text.substr(0, colon), d = text.substr(colon + 1);
    if (!all_digits(p) || !all_digits(d) || p.size() > 6 || d.size() > 6) return false;
    platform = std::stoul(p);
    device = std::stoul(d);
    return true;
}

}  // namespace

std::vector<DeviceEntry> Context::devices() {
    std::vector<cl::Platform> platforms;
    const cl_int status = cl::Platform::get(&platforms);
    if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (status == CL_SUCCESS && platforms.empty())) {
        throw Error(
            "no OpenCL platform found: the ICD loader sees no driver. Install one, e.g. PoCL for the CPU "
            "(apt-get install pocl-opencl-icd), or point OCL_ICD_VENDORS at a directory of .icd files");
    }
    NETCL_CL_CHECK(status, "listing OpenCL platforms");

    std::vector<DeviceEntry> entries;
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> devices;
        const cl_int dstatus = platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
        if (dstatus == CL_DEVICE_NOT_FOUND) continue;
        NETCL_CL_CHECK(dstatus, "listing the devices of OpenCL platform " + std::to_string(p));
        for (std::size_t d = 0; d < devices.size(); ++d) {
            entries.push_back({p, d, platforms[p], devices[d], read_device_profile(platforms[p], devices[d])});
        }
    }
    if (entries.empty()) {
        throw Error("OpenCL platforms were found but none has a device; install a driver such as PoCL "
                    "(apt-get install pocl-opencl-icd)");
    }
    return entries;
}

std::size_t Context::default_index(const std::vector<DeviceEntry>& entries) {
    for (const DeviceType wanted : {DeviceType::GPU, DeviceType::CPU}) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (entries[i].profile.type == wanted) return i;
        }
    }
    return 0;
}

std::size_t Context::pick(const std::vector<DeviceEntry>& entries, const std::string& selector) {
    if (selector.empty()) return default_index(entries);
    std::size_t platform = 0, device = 0;
    if (parse_index(selector, platform, device)) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (entries[i].platform_index == platform && entries[i].device_index == device) return i;
        }
        throw Error("NETCL_DEVICE='" + selector + "' names no device; expected one of:" + device_list(entries));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& p = entries[i].profile;
        if (internal::contains_ignoring_case(p.vendor + " " + p.name + " " + p.platform_name, selector)) return i;
    }
    throw Error("NETCL_DEVICE='" + selector +
                "' matches no device (expected 'platform:device' or a substring of a vendor, device or "
                "platform name); the devices are:" +
                device_list(entries));
}

std::shared_ptr<Context> Context::create() {
    const char* env = std::getenv("NETCL_DEVICE");
    return create(env ? std::string(env) : std::string());
}

std::shared_ptr<Context> Context::create(const std::string& selector) {
    const auto entries = devices();
    const auto& entry = entries[pick(entries, selector)];
    log().info("device {} '{}' ({}, {})", entry.id(), entry.profile.name, to_string(entry.profile.type),
               entry.profile.platform_name);
    return std::make_shared<Context>(entry);
}

namespace {

cl::Context own_context(const DeviceEntry& entry) {
    cl_int status = CL_SUCCESS;
    cl::Context context(entry.device, nullptr, nullptr, nullptr, &status);
    NETCL_CL_CHECK(status, "creating an OpenCL context on '" + entry.profile.name + "'");
    return context;
}

template <typename T>
T queue_info(cl_command_queue queue, cl_command_queue_info what, const char* name) {
    T value{};
    NETCL_CL_CHECK(clGetCommandQueueInfo(queue, what, sizeof value, &value, nullptr),
                   std::string("reading the command queue's ") + name);
    return value;
}

}  // namespace

Context::Context(const DeviceEntry& entry)
    : Context(own_context(entry), entry.device, cl::CommandQueue(), entry.profile, entry.id(), false) {}

Context::Context(cl::Context context, cl::Device device, cl::CommandQueue queue, DeviceProfile profile,
                 std::string device_id, bool wrapped)
    : context_(std::move(context)),
      device_(std::move(device)),
      queue_(std::move(queue)),
      profile_(std::move(profile)),
      memory_(std::make_shared<MemoryBudget>()),
      device_id_(std::move(device_id)),
      wrapped_(wrapped) {
    set_profile(profile_);
    if (!queue_()) {
        cl_int status = CL_SUCCESS;
        queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
        NETCL_CL_CHECK(status, "creating a profiling command queue on '" + profile_.name + "'");
    }
    const auto properties = queue_info<cl_command_queue_properties>(queue_(), CL_QUEUE_PROPERTIES, "properties");
    profiling_ = (properties & CL_QUEUE_PROFILING_ENABLE) != 0;
    out_of_order_ = (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    programs_ = std::make_unique<ProgramCache>(context_, device_, profile_);
    // OpenCL 1.2 reports the preferred work-group multiple per kernel only.
    cl_int status = CL_SUCCESS;
    cl::Kernel probe(programs_->get("probe"), "netcl_probe", &status);
    NETCL_CL_CHECK(status, "creating the probe kernel");
    std::size_t multiple = 0;
    if (probe.getWorkGroupInfo(device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, &multiple) == CL_SUCCESS) {
        profile_.preferred_work_group_multiple = multiple;
    }
}

std::shared_ptr<Context> Context::wrap(::cl_context context, cl_device_id device, cl_command_queue queue) {
    if (context == nullptr || device == nullptr || queue == nullptr) {
        throw Error(std::string("Context::wrap: got a null ") +
                    (context == nullptr ? "cl_context" : device == nullptr ? "cl_device_id" : "cl_command_queue") +
                    "; expected the framework's context, device and command queue");
    }
    if (queue_info<::cl_context>(queue, CL_QUEUE_CONTEXT, "context") != context) {
        throw Error("Context::wrap: the command queue belongs to another cl_context; expected a queue of the given context");
    }
    if (queue_info<cl_device_id>(queue, CL_QUEUE_DEVICE, "device") != device) {
        throw Error("Context::wrap: the command queue is for another device; expected a queue of the given device");
    }
    cl_platform_id platform = nullptr;
    NETCL_CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr),
                   "Context::wrap: reading the device's platform");
    // The C++ wrappers take a reference of their own (retain = true); netcl
    // releases exactly those when the Context goes.
    const cl::Device dev(device, true);
    DeviceProfile profile = read_device_profile(cl::Platform(platform), dev);
    std::string id = "wrapped";
    try {
        for (const auto& e : devices()) {
            if (e.device() == device) id = e.id();
        }
    } catch (const Error&) {
        // A device the ICD loader does not list (a sub-device): keep "wrapped".
    }
    log().info("wrapped the caller's context on device {} '{}'", id, profile.name);
    return std::shared_ptr<Context>(
        new Context(cl::Context(context, true), dev, cl::CommandQueue(queue, true), std::move(profile), id, true));
}

Context::~Context() {
    for (auto& hook : destruction_hooks_) {
        try {
            hook();
        } catch (const std::exception& e) {
            log().warn("a Context destruction hook failed: {}", e.what());
        }
    }
}

void Context::at_destruction(std::function<void()> hook) {
    std::lock_guard lock(hooks_mutex_);
    destruction_hooks_.push_back(std::move(hook));
}

void Context::set_profile(DeviceProfile profile) {
    profile_ = std::move(profile);
    if (const auto it = profile_.tuned.find("memory_limit_bytes"); it != profile_.tuned.end()) {
        memory_->set_limit(it->second > 0 ? static_cast<std::size_t>(it->second) : 0);
    }
}

std::size_t Context::memory_in_use() const { return memory_->in_use(); }
std::size_t Context::memory_limit() const { return memory_->limit(); }
void Context::set_memory_limit(std::size_t bytes) { memory_->set_limit(bytes); }

void Context::finish() const { NETCL_CL_CHECK(queue_.finish(), "waiting for the command queue"); }

}  // namespace netcl
