#pragma once

namespace netcl::bench {

// How much of the machine's CPU other processes used while a candidate was
// timed: /proc/stat's busy time of all cores minus this process's own CPU
// time (getrusage), over the cores' total. On a machine whose cores are shared
// a figure taken while another job ran is not the candidate's own: oneDNN
// splits its work statically over its threads, so one core taken by another
// process doubles its time (seen: 1.33 -> 2.65 ms on a 1x1 layer, in steps),
// while PoCL hands its work-groups out as threads come free and, in the runs
// seen, lost less. The share tells a reader which figures (and so which ratios)
// were disturbed.
//
// /proc/stat counts in ticks of 10 ms per core while getrusage counts in
// microseconds, so over a short window the difference is mostly rounding (seen:
// "18 %" over 8 ms on an idle machine); share() answers only for windows of
// at least kMinWindowMs, where one tick is under 3 % of two cores' time.
class OtherLoad {
public:
    static constexpr double kMinWindowMs = 200;

    OtherLoad();  // starts the window
    // Share of all cores' time that other processes used since the start, 0..1;
    // negative when the window is shorter than kMinWindowMs or /proc/stat cannot be read.
    double share() const;
    double window_ms() const;

private:
    unsigned long long busy_ = 0, total_ = 0;
    double own_seconds_ = 0;
    double start_seconds_ = 0;
    bool readable_ = false;
};

}  // namespace netcl::bench
