#include "runtime/Context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "runtime/Error.hpp"
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

Context::Context(const DeviceEntry& entry)
    : device_(entry.device), profile_(entry.profile), device_id_(entry.id()) {
    cl_int status = CL_SUCCESS;
    context_ = cl::Context(device_, nullptr, nullptr, nullptr, &status);
    NETCL_CL_CHECK(status, "creating an OpenCL context on '" + profile_.name + "'");
    queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
    NETCL_CL_CHECK(status, "creating a profiling command queue on '" + profile_.name + "'");
    programs_ = std::make_unique<ProgramCache>(context_, device_, profile_);
    // OpenCL 1.2 reports the preferred work-group multiple per kernel only.
    cl::Kernel probe(programs_->get("probe"), "netcl_probe", &status);
    NETCL_CL_CHECK(status, "creating the probe kernel");
    std::size_t multiple = 0;
    if (probe.getWorkGroupInfo(device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, &multiple) == CL_SUCCESS) {
        profile_.preferred_work_group_multiple = multiple;
    }
}

Context::~Context() = default;

void Context::finish() const { NETCL_CL_CHECK(queue_.finish(), "waiting for the command queue"); }

}  // namespace netcl
