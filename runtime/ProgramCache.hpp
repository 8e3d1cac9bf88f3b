#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"

namespace netcl {

// Builds each (source, options) once per context and device, and keeps the
// binaries on disk so a second process loads instead of compiling:
// $NETCL_CACHE_DIR, else $XDG_CACHE_HOME/netcl, else ~/.cache/netcl
// (NETCL_CACHE_DIR=off disables the disk cache). A disk entry is keyed by
// device name, driver version, source hash and options, stores that key and a
// checksum: a corrupt file, or one that holds another entry, is logged,
// deleted and rebuilt. A directory that cannot be written (read-only, full)
// is warned about, naming the path, and the programs are built instead.
// Thread-safe; processes racing on one directory write whole files.
class ProgramCache {
public:
    struct Stats {
        std::uint64_t memory_hits = 0;
        std::uint64_t disk_hits = 0;
        std::uint64_t builds = 0;
        std::uint64_t corrupt_files = 0;  // disk entries found damaged and rebuilt
        double build_ms = 0;              // time spent compiling from source
        double disk_load_ms = 0;          // time spent creating programs from cached binaries
    };

    ProgramCache(cl::Context context, cl::Device device, const DeviceProfile& profile);

    // The program of kernels_cl/<source_name>.cl built with `options`.
    cl::Program get(const std::string& source_name, const std::string& options = {});
    // The same for source text the caller holds; `label` names it in errors and logs.
    cl::Program get_source(const std::string& label, const std::string& source, const std::string& options = {});

    Stats stats() const;
    // Where binaries go; empty when the disk cache is off.
    std::string directory() const { return directory_; }
    // The file a (source, options) pair is stored in (tests corrupt it).
    std::string disk_path(const std::string& source, const std::string& options) const;

    static std::uint64_t hash(const std::string& text);
    // The same hash over `size` bytes, continued from `seed` (a hash so far): a
    // key and a binary hashed as one text without copying them into one.
    static std::uint64_t hash(const unsigned char* bytes, std::size_t size, std::uint64_t seed);

private:
    cl::Program build(const std::string& label, const std::string& source, const std::string& options);
    bool load_binary(const std::string& path, const std::string& key, const std::string& label,
                     const std::string& options, cl::Program& out);
    void store_binary(const std::string& path, const std::string& key, const cl::Program& program) const;
    // What a disk entry is for (device, driver, source hash, options), stored
    // in the file; its file name is a 128-bit hash of it.
    std::string key_text(const std::string& source, const std::string& options) const;
    static std::string disk_key(const std::string& key);

    cl::Context context_;
    cl::Device device_;
    std::string device_key_;  // device name + driver version
    // Options this device's compiler gets on every build: on NVIDIA
    // -cl-nv-verbose, so ptxas's register/spill/shared-memory lines land in
    // the build log, which is logged at debug level.
    std::string device_options_;
    std::string directory_;
    mutable std::mutex mutex_;
    std::map<std::string, cl::Program> programs_;
    Stats stats_;
};

}  // namespace netcl
