#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "netcl/DeviceProfile.hpp"
#include "selector/ProfileData.hpp"

namespace netcl {

// What the stored profiles say about one device: tuned values and per-shape
// records, layered from every profile that matches it (default, then
// platform/type, then vendor, then device name, then name+vendor, then
// name+driver; at equal specificity a user-cache file over a shipped one).
struct StoredProfile {
    std::map<std::string, double> tuned;
    std::map<std::string, TunedRecord> records;  // by record_key
    std::vector<std::string> sources;            // the files layered, lowest first
};

// Shipped profiles (selector/profiles/*.json, embedded at build time) and the
// user cache: NETCL_PROFILE_DIR when set, else $XDG_CACHE_HOME/netcl/profiles,
// else ~/.cache/netcl/profiles. A file that does not parse is skipped with a
// warning naming it and what is wrong. Loaded once per device (name, driver,
// vendor, type, user dir) and cached; thread-safe.
class ProfileStore {
public:
    static ProfileStore& global();
    ProfileStore();
    ~ProfileStore();

    std::shared_ptr<const StoredProfile> lookup(const DeviceProfile& device) const;
    // Forget cached lookups (after netcl-tune wrote a user profile, or a test changed the user dir).
    void invalidate();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// `caller` with the stored tuned values added for every key the caller did not set.
DeviceProfile with_stored_tuned(const DeviceProfile& caller, const StoredProfile& stored);

std::filesystem::path user_profile_dir();
// The file netcl-tune writes for this device: <dir>/<device name>--<driver>.json (sanitised).
std::filesystem::path user_profile_path(const DeviceProfile& device);

// The shipped profiles by name ("default", "pocl-cpu", "nvidia-gpu").
std::vector<std::string> shipped_profile_names();
// A whole profile (device facts + tuned) from a shipped name or a file path,
// e.g. to ask the selector about a device that is not here. Throws
// netcl::Error for an unknown name (listing the shipped ones) or a bad file.
DeviceProfile load_profile(const std::string& name_or_path);
ProfileData load_profile_data(const std::string& name_or_path);

// Merges `tuned` and `records` into the user profile of `device` (created when
// missing, matching that device's name and driver) and invalidates the global
// store. Returns the path written.
std::filesystem::path write_user_profile(const DeviceProfile& device, const std::map<std::string, double>& tuned,
                                         const std::vector<TunedRecord>& records);

}  // namespace netcl
