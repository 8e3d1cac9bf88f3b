#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace netcl::bench {

// A one-line progress bar on stderr: layers done / total, the layer and
// candidate being run, elapsed time. Silent when stderr is not a terminal
// (CI logs, pipes, the tests).
class Progress {
public:
    explicit Progress(std::size_t total_steps);
    ~Progress();

    void update(std::size_t done, const std::string& current);
    void finish();  // clears the line

private:
    bool enabled_ = false;
    std::size_t total_ = 0;
    std::size_t last_width_ = 0;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace netcl::bench
