# Writes OUTPUT, a header defining NETCL_GIT_REVISION as `git describe --always
# --dirty` of SOURCE_DIR ("unknown" outside a git checkout), and rewrites it
# only when the revision changed. Run at every build, not at configure time: a
# configure-time revision went stale with every commit after it, and
# netcl-bench's reports named a revision their figures were not measured on
# (fc71b3b-dirty on a build of 12dd911).
execute_process(COMMAND git -C ${SOURCE_DIR} describe --always --dirty
  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT revision)
  set(revision "unknown")
endif()
set(text "// Generated at build time by tools/cmake/GitRevision.cmake.\n#define NETCL_GIT_REVISION \"${revision}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} previous)
endif()
if(NOT "${previous}" STREQUAL "${text}")
  file(WRITE ${OUTPUT} "${text}")
endif()
