#include "selector/SelectionGeneration.hpp"

#include <atomic>

#include "netcl/KernelSelector.hpp"

namespace netcl {

namespace {

std::atomic<std::uint64_t> g_generation{0};

}  // namespace

void note_selection_change() { g_generation.fetch_add(1, std::memory_order_acq_rel); }

std::uint64_t selection_generation() { return g_generation.load(std::memory_order_acquire); }

}  // namespace netcl
