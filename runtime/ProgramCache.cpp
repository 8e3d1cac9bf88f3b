#include "runtime/ProgramCache.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
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

// Format 2: magic, key length, key, binary size, checksum of key and binary,
// binary. The key (device, driver, source hash, options) is stored and
// compared, not only hashed into the file name: a file copied or renamed over
// another entry is refused instead of loading another program's kernels.
constexpr char kMagic[8] = {'N', 'E', 'T', 'C', 'L', 'B', 'N', '2'};

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
    return hash(reinterpret_cast<const unsigned char*>(text.data()), text.size(), 1469598103934665603ull);  // FNV-1a 64
}

std::uint64_t ProgramCache::hash(const unsigned char* bytes, std::size_t size, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (std::size_t i = 0; i < size; ++i) {
        h ^= bytes[i];
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

std::string ProgramCache::key_text(const std::string& source, const std::string& options) const {
    return device_key_ + "|" + hex(hash(source)) + "|" + options;
}

std::string ProgramCache::disk_key(const std::string& key) {
    // Two independent 64-bit hashes: the stored key is compared as well.
    return hex(hash(key)) + hex(hash(key + "#salt"));
}

std::string ProgramCache::disk_path(const std::string& source, const std::string& options) const {
    if (directory_.empty()) return {};
    return directory_ + "/programs/" + disk_key(key_text(source, options + device_options_)) + ".bin";
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
    const std::string key = key_text(source, options);
    if (path.empty() || !load_binary(path, key, label, options, program)) {
        program = build(label, source, options);
        if (!path.empty()) store_binary(path, key, program);
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

namespace {

// Where the binary of a cache file whose header matches `key` begins, or why not.
std::string unpack(const std::vector<unsigned char>& bytes, const std::string& key, std::size_t& binary_at) {
    std::size_t at = 0;
    const auto read_u64 = [&](std::uint64_t& value) {
        if (bytes.size() - at < sizeof value) return false;
        std::memcpy(&value, bytes.data() + at, sizeof value);
        at += sizeof value;
        return true;
    };
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
        return "not a netcl program cache file of this version";
    }
    at = sizeof kMagic;
    std::uint64_t key_size = 0, size = 0, checksum = 0;
    if (!read_u64(key_size) || key_size > bytes.size() - at) return "truncated";
    const std::string stored(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                             bytes.begin() + static_cast<std::ptrdiff_t>(at + key_size));
    at += key_size;
    if (!read_u64(size) || !read_u64(checksum) || size != bytes.size() - at) return "truncated";
    if (stored != key) return "it holds another program (" + stored + ")";
    if (ProgramCache::hash(bytes.data() + at, bytes.size() - at, ProgramCache::hash(stored)) != checksum) {
        return "its checksum does not match";
    }
    binary_at = at;
    return {};
}

}  // namespace

bool ProgramCache::load_binary(const std::string& path, const std::string& key, const std::string& label,
                               const std::string& options, cl::Program& out) {
    std::error_code type_error;
    const bool regular = std::filesystem::is_regular_file(path, type_error);
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return false;
    const auto start = std::chrono::steady_clock::now();
    // One read of the whole file, and the binary handed on in the same buffer (its header moved off the
    // front, no new allocation): PoCL's binaries are 100 KB-1 MB, and a process loads every program it runs
    // from here. Read a byte at a time through istreambuf_iterator and copied three times on the way, loading
    // took 12 % of test_reliability_faults' samples under ASan (perf, Zen 3; that test loads a layer's
    // programs again for every call site it fails) and none now, though the test's wall time moved within
    // its noise (15.2 -> 15.9 s on one variant): page faults of PoCL's own program loading dominate it.
    // Anything but a regular file (a directory opens, and its "end" is no size) reads as empty: corrupt below.
    const std::streamoff size = regular ? static_cast<std::streamoff>(file.tellg()) : 0;
    std::vector<unsigned char> bytes(size > 0 ? static_cast<std::size_t>(size) : 0);
    file.seekg(0);
    file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(file.gcount()));  // a file cut short reads as truncated below
    file.close();

    std::size_t binary_at = 0;
    std::string why = unpack(bytes, key, binary_at);
    if (why.empty()) {
        bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(binary_at));
        cl::Program::Binaries binaries;
        binaries.push_back(std::move(bytes));
        cl_int status = CL_SUCCESS;
        cl::Program program(context_, {device_}, binaries, nullptr, &status);
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
        why = "the driver refused the binary: " + cl_error_name(status);
    }
    ++stats_.corrupt_files;
    // Deleted, then written again after the build: a file that is only
    // unusable for now (the driver out of memory) costs one rebuild.
    log().warn("program cache file {} for '{}' is unusable ({}); deleting it and rebuilding", path, label, why);
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return false;
}

void ProgramCache::store_binary(const std::string& path, const std::string& key, const cl::Program& program) const {
    std::vector<std::vector<unsigned char>> binaries;
    if (program.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS || binaries.size() != 1 || binaries[0].empty()) {
        log().debug("device gave no program binary; {} not written", path);
        return;
    }
    const auto& binary = binaries[0];
    std::error_code error;
    const auto directory = std::filesystem::path(path).parent_path();
    std::filesystem::create_directories(directory, error);
    if (error) {
        log().warn("cannot create the program cache directory {} ({}); programs are built in every process",
                   directory.string(), error.message());
        return;
    }
    // Write to a private name, then rename: a reader never sees half a file,
    // and of two processes storing the same entry the last rename wins whole.
    const std::string temp = path + ".tmp" + std::to_string(::getpid()) + "." +
                             std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    {
        std::ofstream file(temp, std::ios::binary);
        if (!file) {
            log().warn("cannot write the program cache file {} ({}); programs are built in every process", temp,
                       std::strerror(errno));
            return;
        }
        const std::uint64_t key_size = key.size(), size = binary.size();
        const std::uint64_t checksum = hash(binary.data(), binary.size(), hash(key));
        file.write(kMagic, sizeof kMagic);
        file.write(reinterpret_cast<const char*>(&key_size), sizeof key_size);
        file.write(key.data(), static_cast<std::streamsize>(key.size()));
        file.write(reinterpret_cast<const char*>(&size), sizeof size);
        file.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
        file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
        file.close();  // a full disk often shows only here, when the buffer is written out
        if (file.fail()) {
            log().warn("could not write the program cache file {} ({}; a full disk?); continuing without it", temp,
                       std::strerror(errno));
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
