#include "ops/internal/ClblastCache.hpp"

#include <clblast.h>

#include <mutex>
#include <set>

#include "runtime/Log.hpp"

namespace netcl::internal {

namespace {

std::mutex g_mutex;
std::set<const Context*> g_users;  // Contexts that have called CLBlast and still live

}  // namespace

void clblast_will_use(Context& context) {
    {
        std::lock_guard lock(g_mutex);
        if (!g_users.insert(&context).second) return;
    }
    const Context* key = &context;
    context.at_destruction([key] {
        std::lock_guard lock(g_mutex);
        g_users.erase(key);
        const auto status = clblast::ClearCache();
        if (status != clblast::StatusCode::kSuccess) {
            log().warn("clearing CLBlast's program cache failed ({}); its programs keep their contexts alive",
                       static_cast<int>(status));
        }
    });
}

}  // namespace netcl::internal
