#include "Progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace netcl::bench {

Progress::Progress(std::size_t total_steps)
    : enabled_(isatty(STDERR_FILENO) == 1), total_(total_steps), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done, const std::string& current) {
    if (!enabled_) return;
    constexpr std::size_t kBar = 24;
    const std::size_t filled = total_ ? kBar * done / total_ : kBar;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line(1, '[');
    line.append(filled, '#').append(kBar - filled, '.').append("] ");
    line += std::to_string(done) + "/" + std::to_string(total_) + " layers  " + current;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "  %.1f s", elapsed);
    line += seconds;
    if (line.size() > 110) line = line.substr(0, 107) + "...";
    const std::size_t width = line.size();
    if (width < last_width_) line += std::string(last_width_ - width, ' ');  // erase the longer previous line
    last_width_ = width;
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
}

void Progress::finish() {
    if (!enabled_ || last_width_ == 0) return;
    std::fprintf(stderr, "\r%s\r", std::string(last_width_, ' ').c_str());
    std::fflush(stderr);
    last_width_ = 0;
}

}  // namespace netcl::bench
