#include "selector/internal/ProfileJson.hpp"

#include <nlohmann/json.hpp>

#include "netcl/Error.hpp"
#include "ops/Implementations.hpp"
#include "runtime/Log.hpp"
#include "selector/Thresholds.hpp"

namespace netcl::detail {

namespace {

using nlohmann::json;

// The one format version this code reads and writes.
constexpr int kFormatVersion = 1;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw Error("profile " + source + ": " + what);
}

const json& member(const json& object, const char* key, const std::string& source, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) fail(source, where + " has no \"" + key + "\"");
    return *it;
}

std::string string_field(const json& object, const char* key, const std::string& source, const std::string& where) {
    const json& value = member(object, key, source, where);
    if (!value.is_string()) fail(source, where + "." + key + " must be a string, got " + value.type_name());
    return value.get<std::string>();
}

// Device facts are non-negative integers; a negative or fractional one is a mistake, not a fact.
std::uint64_t count_field(const json& value, const std::string& source, const std::string& where) {
    if (!value.is_number_unsigned()) {
        fail(source, where + " must be a non-negative integer, got " +
                         (value.is_number() ? value.dump() : std::string(value.type_name())));
    }
    return value.get<std::uint64_t>();
}

DeviceType type_from_string(const std::string& text, const std::string& source, const std::string& where) {
    for (const DeviceType t : {DeviceType::CPU, DeviceType::GPU, DeviceType::ACCELERATOR, DeviceType::OTHER}) {
        if (text == to_string(t)) return t;
    }
    fail(source, where + " is '" + text + "'; expected CPU, GPU, ACCELERATOR or OTHER");
}

void read_match(const json& match, ProfileData& out, const std::string& source) {
    if (!match.is_object()) fail(source, std::string("\"match\" must be an object, got ") + match.type_name());
    for (const auto& [key, value] : match.items()) {
        if (key != "vendor" && key != "platform" && key != "type" && key != "name" && key != "driver") {
            fail(source, "match." + key + " is not a match key; expected vendor, platform, type, name or driver");
        }
        if (!value.is_string()) fail(source, "match." + key + " must be a string, got " + value.type_name());
        if (key == "type") type_from_string(value.get<std::string>(), source, "match.type");
        out.match[key] = value.get<std::string>();
    }
}

void read_device(const json& device, DeviceProfile& p, const std::string& source) {
    if (!device.is_object()) fail(source, std::string("\"device\" must be an object, got ") + device.type_name());
    const std::map<std::string, std::string*> strings = {
        {"platform_name", &p.platform_name}, {"vendor", &p.vendor},
        {"name", &p.name},                   {"driver_version", &p.driver_version},
        {"device_version", &p.device_version}, {"opencl_c_version", &p.opencl_c_version}};
    for (const auto& [key, value] : device.items()) {
        const std::string where = "device." + key;
        if (const auto s = strings.find(key); s != strings.end()) {
            if (!value.is_string()) fail(source, where + " must be a string, got " + value.type_name());
            *s->second = value.get<std::string>();
        } else if (key == "type") {
            if (!value.is_string()) fail(source, where + " must be a string, got " + value.type_name());
            p.type = type_from_string(value.get<std::string>(), source, where);
        } else if (key == "fp16" || key == "fp64") {
            if (!value.is_boolean()) fail(source, where + " must be true or false, got " + value.type_name());
            (key == "fp16" ? p.fp16 : p.fp64) = value.get<bool>();
        } else if (key == "compute_units") {
            p.compute_units = static_cast<std::uint32_t>(count_field(value, source, where));
        } else if (key == "max_clock_mhz") {
            p.max_clock_mhz = static_cast<std::uint32_t>(count_field(value, source, where));
        } else if (key == "global_mem_bytes") {
            p.global_mem_bytes = count_field(value, source, where);
        } else if (key == "max_alloc_bytes") {
            p.max_alloc_bytes = count_field(value, source, where);
        } else if (key == "local_mem_bytes") {
            p.local_mem_bytes = count_field(value, source, where);
        } else if (key == "max_constant_buffer_bytes") {
            p.max_constant_buffer_bytes = count_field(value, source, where);
        } else if (key == "max_constant_args") {
            p.max_constant_args = static_cast<std::uint32_t>(count_field(value, source, where));
        } else if (key == "max_work_group_size") {
            p.max_work_group_size = static_cast<std::size_t>(count_field(value, source, where));
        } else if (key == "preferred_work_group_multiple") {
            p.preferred_work_group_multiple = static_cast<std::size_t>(count_field(value, source, where));
        } else {
            fail(source, where + " is not a device field");
        }
    }
}

// A variant is its id ("wino-f4-fused-global"). Profiles written before ids
// existed hold {"winograd_tile", "low_local_memory", "constant_weights"}: read as the same id.
Variant read_variant(const json& v, Kernel kernel, const std::string& source, const std::string& where) {
    if (v.is_string()) return Variant(v.get<std::string>());
    if (!v.is_object()) fail(source, where + " must be a variant id string, got " + v.type_name());
    int tile = 0;
    bool low = false, constant = false;
    for (const auto& [key, value] : v.items()) {
        if (key == "winograd_tile") {
            tile = static_cast<int>(count_field(value, source, where + ".winograd_tile"));
        } else if ((key == "low_local_memory" || key == "constant_weights") && value.is_boolean()) {
            (key == "low_local_memory" ? low : constant) = value.get<bool>();
        } else {
            fail(source, where + "." + key + " is not a variant field");
        }
    }
    if (kernel == Kernel::CONV2D_WINOGRAD) {
        return Variant("wino-f" + std::to_string(tile) + (low ? "-lowlocal" : "-fused") + (constant ? "-constant" : "-global"));
    }
    return Variant(kernel == Kernel::IM2COL ? "im2col-clblast" : "naive");
}

void read_records(const json& records, ProfileData& out, const std::string& source) {
    if (!records.is_array()) fail(source, std::string("\"records\" must be an array, got ") + records.type_name());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::string where = "records[" + std::to_string(i) + "]";
        const json& r = records[i];
        if (!r.is_object()) fail(source, where + " must be an object, got " + r.type_name());
        TunedRecord record;
        record.shape = string_field(r, "shape", source, where);
        try {
            record.kernel = kernel_from_string(string_field(r, "kernel", source, where));
        } catch (const Error& e) {
            fail(source, where + ".kernel: " + e.what());
        }
        // Without a variant the record names only the strategy; the selector picks its variant.
        if (r.contains("variant")) {
            record.variant = read_variant(r["variant"], record.kernel, source, where + ".variant");
            const ConvImplementation* impl = nullptr;
            try {
                impl = &implementation_of(record.variant);
            } catch (const Error& e) {
                fail(source, where + ".variant: " + e.what());
            }
            if (impl->kernel() != record.kernel) {
                fail(source, where + ".variant " + record.variant.id + " does not run under " + to_string(record.kernel));
            }
        }
        if (r.contains("median_ms")) {
            if (!r["median_ms"].is_number()) fail(source, where + ".median_ms must be a number");
            record.median_ms = r["median_ms"].get<double>();
        }
        out.records[record.shape] = record;
    }
}

}  // namespace

ProfileData parse_profile(const std::string& text, const std::string& source) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        // A truncated file ends in the middle of a value: say so, as well as where.
        fail(source, std::string("not valid JSON (truncated or malformed): ") + e.what());
    }
    if (!doc.is_object()) fail(source, std::string("the top level must be an object, got ") + doc.type_name());
    const json& version = member(doc, "netcl_profile", source, "the top level");
    if (!version.is_number_integer() || version.get<int>() != kFormatVersion) {
        fail(source, "netcl_profile is " + version.dump() + "; this netcl reads format " + std::to_string(kFormatVersion));
    }
    ProfileData out;
    out.source = source;
    for (const auto& [key, value] : doc.items()) {
        if (key == "netcl_profile" || key == "description") continue;
        if (key == "match") {
            read_match(value, out, source);
        } else if (key == "device") {
            read_device(value, out.device, source);
        } else if (key == "tuned") {
            if (!value.is_object()) fail(source, std::string("\"tuned\" must be an object, got ") + value.type_name());
            for (const auto& [name, number] : value.items()) {
                if (!number.is_number()) fail(source, "tuned." + name + " must be a number, got " + number.type_name());
                if (!is_known_tuned_key(name)) {
                    log().warn("profile {}: tuned.{} is not a key netcl reads; it has no effect (known keys: {})",
                               source, name, known_tuned_keys_text());
                }
                out.device.tuned[name] = number.get<double>();
            }
        } else if (key == "records") {
            read_records(value, out, source);
        } else if (key == "budget") {
            if (!value.is_object()) fail(source, std::string("\"budget\" must be an object, got ") + value.type_name());
            for (const auto& [name, number] : value.items()) {
                if (name != "min_occupancy" && name != "max_spill_bytes" && name != "max_stack_bytes" &&
                    name != "max_registers" && name != "max_shared_bytes") {
                    fail(source, "budget." + name + " is not a budget; expected min_occupancy, max_spill_bytes, "
                                 "max_stack_bytes, max_registers or max_shared_bytes");
                }
                if (!number.is_number()) fail(source, "budget." + name + " must be a number, got " + number.type_name());
                out.budget[name] = number.get<double>();
            }
        } else {
            fail(source, "unknown top-level key \"" + key + "\"; expected match, device, tuned, records, budget, description");
        }
    }
    out.device.tuned_source = source;
    return out;
}

std::string serialize_profile(const ProfileData& profile) {
    json doc;
    doc["netcl_profile"] = kFormatVersion;
    doc["description"] = "Written by netcl-tune: measured winners and fitted thresholds for one device.";
    doc["match"] = json::object();
    for (const auto& [key, value] : profile.match) doc["match"][key] = value;
    const DeviceProfile& d = profile.device;
    doc["device"] = {{"platform_name", d.platform_name},
                     {"vendor", d.vendor},
                     {"name", d.name},
                     {"type", to_string(d.type)},
                     {"driver_version", d.driver_version},
                     {"device_version", d.device_version},
                     {"opencl_c_version", d.opencl_c_version},
                     {"compute_units", d.compute_units},
                     {"local_mem_bytes", d.local_mem_bytes},
                     {"max_constant_buffer_bytes", d.max_constant_buffer_bytes},
                     {"max_constant_args", d.max_constant_args},
                     {"max_alloc_bytes", d.max_alloc_bytes},
                     {"global_mem_bytes", d.global_mem_bytes},
                     {"max_work_group_size", d.max_work_group_size}};
    doc["tuned"] = json::object();
    for (const auto& [key, value] : d.tuned) doc["tuned"][key] = value;
    doc["records"] = json::array();
    for (const auto& [key, r] : profile.records) {
        json record = {{"shape", r.shape}, {"kernel", to_string(r.kernel)}, {"median_ms", r.median_ms}};
        if (!r.variant.empty()) record["variant"] = r.variant.id;
        doc["records"].push_back(record);
    }
    return doc.dump(2) + "\n";
}

}  // namespace netcl::detail
