#include "selector/ProfileStore.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

#include "netcl/Error.hpp"
#include "runtime/Log.hpp"
#include "selector/internal/ProfileJson.hpp"

namespace netcl::detail {
// Defined in the source kernels_cl/embed.cmake generates from selector/profiles/*.json.
struct EmbeddedFile {
    const char* name;
    const char* text;
};
extern const EmbeddedFile kEmbeddedProfiles[];
extern const std::size_t kEmbeddedProfileCount;
}  // namespace netcl::detail

namespace netcl {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error("profile " + path.string() + ": cannot be opened for reading");
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// Every profile that could apply to some device: shipped ones first, then the
// user's, each group in name order so layering is reproducible.
std::vector<ProfileData> load_all(const fs::path& user_dir) {
    std::vector<ProfileData> all;
    for (std::size_t i = 0; i < detail::kEmbeddedProfileCount; ++i) {
        const auto& file = detail::kEmbeddedProfiles[i];
        try {
            all.push_back(detail::parse_profile(file.text, std::string("embedded:") + file.name));
        } catch (const Error& e) {
            log().warn("{}; using the built-in default instead", e.what());
        }
    }
    std::error_code ec;
    if (!fs::is_directory(user_dir, ec)) return all;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(user_dir, ec)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        try {
            all.push_back(detail::parse_profile(read_file(path), path.string()));
        } catch (const Error& e) {
            log().warn("{}; ignoring this file, the built-in default applies", e.what());
        }
    }
    return all;
}

std::shared_ptr<const StoredProfile> layer(const std::vector<ProfileData>& all, const DeviceProfile& device) {
    std::vector<const ProfileData*> matching;
    for (const auto& p : all) {
        if (p.matches(device)) matching.push_back(&p);
    }
    // Stable: at equal specificity the later one (user cache after shipped) layers on top.
    std::stable_sort(matching.begin(), matching.end(),
                     [](const ProfileData* a, const ProfileData* b) { return a->specificity() < b->specificity(); });
    auto stored = std::make_shared<StoredProfile>();
    for (const ProfileData* p : matching) {
        for (const auto& [key, value] : p->device.tuned) stored->tuned[key] = value;
        for (const auto& [key, record] : p->records) stored->records[key] = record;
        stored->sources.push_back(p->source);
    }
    return stored;
}

std::string sanitise(const std::string& text) {
    std::string out;
    for (const unsigned char c : text) out += std::isalnum(c) || c == '.' || c == '-' ? static_cast<char>(c) : '_';
    return out.empty() ? "unknown" : out;
}

}  // namespace

struct ProfileStore::State {
    mutable std::mutex mutex;
    mutable std::map<std::string, std::shared_ptr<const StoredProfile>> cache;
};

ProfileStore::ProfileStore() : state_(std::make_unique<State>()) {}
ProfileStore::~ProfileStore() = default;

ProfileStore& ProfileStore::global() {
    static ProfileStore store;
    return store;
}

std::shared_ptr<const StoredProfile> ProfileStore::lookup(const DeviceProfile& device) const {
    const fs::path dir = user_profile_dir();
    const std::string key = dir.string() + "\n" + device.name + "\n" + device.driver_version + "\n" + device.vendor +
                            "\n" + device.platform_name + "\n" + to_string(device.type);
    std::lock_guard lock(state_->mutex);
    if (const auto it = state_->cache.find(key); it != state_->cache.end()) return it->second;
    // Loaded under the lock: a second thread waits instead of parsing the same files again.
    auto stored = layer(load_all(dir), device);
    log().debug("profile for '{}' ({}): {} tuned values, {} records from {} file(s)", device.name,
                device.driver_version, stored->tuned.size(), stored->records.size(), stored->sources.size());
    state_->cache[key] = stored;
    return stored;
}

void ProfileStore::invalidate() {
    std::lock_guard lock(state_->mutex);
    state_->cache.clear();
}

DeviceProfile with_stored_tuned(const DeviceProfile& caller, const StoredProfile& stored) {
    DeviceProfile out = caller;
    for (const auto& [key, value] : stored.tuned) out.tuned.emplace(key, value);  // emplace keeps the caller's
    return out;
}

fs::path user_profile_dir() {
    if (const char* dir = std::getenv("NETCL_PROFILE_DIR"); dir && *dir) return dir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "netcl" / "profiles";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "netcl" / "profiles";
    return fs::temp_directory_path() / "netcl" / "profiles";
}

fs::path user_profile_path(const DeviceProfile& device) {
    return user_profile_dir() / (sanitise(device.name) + "--" + sanitise(device.driver_version) + ".json");
}

std::vector<std::string> shipped_profile_names() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < detail::kEmbeddedProfileCount; ++i) names.emplace_back(detail::kEmbeddedProfiles[i].name);
    return names;
}

ProfileData load_profile_data(const std::string& name_or_path) {
    for (std::size_t i = 0; i < detail::kEmbeddedProfileCount; ++i) {
        if (name_or_path == detail::kEmbeddedProfiles[i].name) {
            return detail::parse_profile(detail::kEmbeddedProfiles[i].text, "embedded:" + name_or_path);
        }
    }
    std::error_code ec;
    if (!fs::is_regular_file(name_or_path, ec)) {
        std::string names;
        for (const auto& n : shipped_profile_names()) names += (names.empty() ? "" : ", ") + n;
        throw Error("'" + name_or_path + "' is neither a shipped profile nor a profile file; the shipped ones are: " +
                    names);
    }
    return detail::parse_profile(read_file(name_or_path), name_or_path);
}

DeviceProfile load_profile(const std::string& name_or_path) { return load_profile_data(name_or_path).device; }

fs::path write_user_profile(const DeviceProfile& device, const std::map<std::string, double>& tuned,
                            const std::vector<TunedRecord>& records) {
    const fs::path path = user_profile_path(device);
    ProfileData data;
    std::error_code ec;
    if (fs::exists(path, ec)) {
        try {
            data = detail::parse_profile(read_file(path), path.string());
        } catch (const Error& e) {
            log().warn("{}; replacing it", e.what());
            data = {};
        }
    }
    data.match = {{"name", device.name}, {"driver", device.driver_version}};
    auto merged_tuned = data.device.tuned;
    data.device = device;
    data.device.tuned = merged_tuned;
    for (const auto& [key, value] : tuned) data.device.tuned[key] = value;
    for (const auto& record : records) data.records[record.shape] = record;

    fs::create_directories(path.parent_path(), ec);
    if (ec) throw Error("cannot create the profile directory " + path.parent_path().string() + ": " + ec.message());
    // Write beside it and rename, so a reader never sees half a file.
    const fs::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write the profile " + temporary.string());
        out << detail::serialize_profile(data);
        if (!out.flush()) throw Error("writing the profile " + temporary.string() + " failed");
    }
    fs::rename(temporary, path, ec);
    if (ec) throw Error("cannot move " + temporary.string() + " to " + path.string() + ": " + ec.message());
    ProfileStore::global().invalidate();
    return path;
}

}  // namespace netcl
