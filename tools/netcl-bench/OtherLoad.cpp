#include "OtherLoad.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace netcl::bench {

namespace {

// The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal ...", all cores summed.
bool read_stat(unsigned long long& busy, unsigned long long& total) {
    std::ifstream file("/proc/stat");
    std::string line;
    if (!file || !std::getline(file, line)) return false;
    std::istringstream fields(line);
    std::string label;
    unsigned long long v[8] = {};
    fields >> label;
    for (auto& value : v) fields >> value;
    if (!fields || label != "cpu") return false;
    total = 0;
    for (const auto value : v) total += value;
    busy = total - v[3] - v[4];  // not idle, not waiting for I/O
    return true;
}

double own_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

OtherLoad::OtherLoad()
    : own_seconds_(own_cpu_seconds()), start_seconds_(now_seconds()) {
    readable_ = read_stat(busy_, total_);
}

double OtherLoad::share() const {
    unsigned long long busy = 0, total = 0;
    if (!readable_ || window_ms() < kMinWindowMs || !read_stat(busy, total)) return -1;
    if (total <= total_) return 0;
    const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double own_ticks = (own_cpu_seconds() - own_seconds_) * ticks_per_second;
    const double others = static_cast<double>(busy - busy_) - own_ticks;
    return std::clamp(others / static_cast<double>(total - total_), 0.0, 1.0);
}

double OtherLoad::window_ms() const { return (now_seconds() - start_seconds_) * 1e3; }

}  // namespace netcl::bench
