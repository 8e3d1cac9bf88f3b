#include "runtime/ProgramCache.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <unistd.h>

#include "runtime/EmbeddedSources.hpp"
#include "netcl/Error.hpp"
#include "runtime/Log.hpp"
#include "runtime/internal/Text.hpp"

namespace netcl {

namespace {

constexpr char kMagic[8] = {'N', 'E', 'T', 'C', 'L', 'B', 'N', '1'};

std::string default_directory() {
    if (const char* dir = std::getenv("NETCL_CACHE_DIR"); dir && *dir) {
        return std::string(dir) == "off" ? std::string() : std::string(dir);
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/netcl";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/netcl";
    return {};
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string hex(std::uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

std::uint64_t ProgramCache::hash(const std::string& text) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
    for (const unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

ProgramCache::ProgramCache(cl::Context context, cl::Device device, const DeviceProfile& profile)
    : context_(std::move(context)),
      device_(std::move(device)),
      device_key_(profile.name + "|" + profile.driver_version + "|" + profile.platform_name),
      directory_(default_directory()) {
    if (internal::contains_ignoring_case(profile.vendor, "NVIDIA")) device_options_ = " -cl-nv-verbose";
}

std::string ProgramCache::disk_key(const std::string& source, const std::string& options) const {
    const std::string key = device_key_ + "|" + hex(hash(source)) + "|" + options;
    // Two independent 64-bit hashes: a collision would load the wrong kernel.
    return hex(hash(key)) + hex(hash(key + "#salt"));
}

std::string ProgramCache::disk_path(const std::string& source, const std::string& options) const {
    if (directory_.empty()) return {};
    return directory_ + "/programs/" + disk_key(source, options + device_options_) + ".bin";
}

cl::Program ProgramCache::get(const std::string& source_name, const std::string& options) {
    return get_source(source_name, embedded_source(source_name), options);
}

cl::Program ProgramCache::get_source(const std::string& label, const std::string& source, const std::string& given) {
    const std::string options = given + device_options_;
    const std::string memory_key = hex(hash(source)) + "|" + options;
    std::lock_guard lock(mutex_);
    if (const auto it = programs_.find(memory_key); it != programs_.end()) {
        ++stats_.memory_hits;
        return it->second;
    }
    cl::Program program;
    const std::string path = disk_path(source, given);
    if (path.empty() || !load_binary(path, label, options, program)) {
        program = build(label, source, options);
        if (!path.empty()) store_binary(path, program);
    }
    programs_.emplace(memory_key, program);
    return program;
}

cl::Program ProgramCache::build(const std::string& label, const std::string& source, const std::string& options) {
    const auto start = std::chrono::steady_clock::now();
    cl_int status = CL_SUCCESS;
    cl::Program program(context_, source, false, &status);
    NETCL_CL_CHECK(status, "creating program '" + label + "'");
    status = program.build(std::vector<cl::Device>{device_}, options.c_str());
    if (status != CL_SUCCESS) {
        std::string build_log;
        program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &build_log);
        throw Error("building OpenCL program '" + label + "'", status, "options: '" + options + "'", build_log);
    }
    ++stats_.builds;
    stats_.build_ms += ms_since(start);
    log().debug("built program '{}' [{}] in {:.0f} ms", label, options, ms_since(start));
    if (!device_options_.empty() && log().should_log(spdlog::level::debug)) {
        std::string build_log;
        program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &build_log);
        log().debug("build log of '{}' (the driver's compiler):\n{}", label, build_log);
    }
    return program;
}

bool ProgramCache::load_binary(const std::string& path, const std::string& label, const std::string& options,
                               cl::Program& out) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    const auto start = std::chrono::steady_clock::now();
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    file.close();

    const std::size_t header = sizeof kMagic + 2 * sizeof(std::uint64_t);
    std::uint64_t size = 0, checksum = 0;
    bool intact = bytes.size() >= header && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
    if (intact) {
        std::memcpy(&size, bytes.data() + sizeof kMagic, sizeof size);
        std::memcpy(&checksum, bytes.data() + sizeof kMagic + sizeof size, sizeof checksum);
        intact = size == bytes.size() - header &&
                 hash(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end())) == checksum;
    }
    if (intact) {
        const std::vector<unsigned char> binary(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
        cl_int status = CL_SUCCESS;
        cl::Program program(context_, {device_}, cl::Program::Binaries{binary}, nullptr, &status);
        if (status == CL_SUCCESS) {
            // clBuildProgram on a binary links it for the device; a stale binary fails here.
            status = program.build(std::vector<cl::Device>{device_}, options.c_str());
        }
        if (status == CL_SUCCESS) {
            ++stats_.disk_hits;
            stats_.disk_load_ms += ms_since(start);
            log().debug("loaded program '{}' from {} in {:.1f} ms", label, path, ms_since(start));
            out = program;
            return true;
        }
    }
    ++stats_.corrupt_files;
    log().warn("program cache file {} for '{}' is damaged or unusable; deleting it and rebuilding", path, label);
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return false;
}

void ProgramCache::store_binary(const std::string& path, const cl::Program& program) const {
    std::vector<std::vector<unsigned char>> binaries;
    if (program.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS || binaries.size() != 1 || binaries[0].empty()) {
        log().debug("device gave no program binary; {} not written", path);
        return;
    }
    const auto& binary = binaries[0];
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    // Write to a private name, then rename: a reader never sees half a file.
    const std::string temp = path + ".tmp" + std::to_string(::getpid()) + "." +
                             std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    {
        std::ofstream file(temp, std::ios::binary);
        const std::uint64_t size = binary.size();
        const std::uint64_t checksum = hash(std::string(binary.begin(), binary.end()));
        file.write(kMagic, sizeof kMagic);
        file.write(reinterpret_cast<const char*>(&size), sizeof size);
        file.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
        file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
        if (!file) {
            log().warn("could not write program cache file {}; continuing without it", temp);
            std::filesystem::remove(temp, error);
            return;
        }
    }
    std::filesystem::rename(temp, path, error);
    if (error) {
        log().warn("could not store program cache file {}: {}", path, error.message());
        std::filesystem::remove(temp, error);
    }
}

ProgramCache::Stats ProgramCache::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace netcl
