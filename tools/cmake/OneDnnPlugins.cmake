# netcl-bench's oneDNN peers: one plugin per oneDNN build found
# (tools/netcl-bench/OneDnnLibrary.hpp says why a plugin and not a link).
# Looked for: the system's (Debian's libdnnl-dev, oneDNN 2.x) and every prefix
# in NETCL_ONEDNN_ROOTS (tools/netcl.sh passes PyPI's onednn-cpu-gomp +
# onednn-devel-cpu-gomp, oneDNN 3.x, installed under the build folder). A
# prefix holds include/oneapi/dnnl/dnnl.hpp and lib/libdnnl.so, as both
# packages lay them out; the version is read from its dnnl_version.h.
set(NETCL_ONEDNN_ROOTS "" CACHE STRING
  "netcl-bench: prefixes of further oneDNN builds to time beside the system's (a ;-list)")

function(netcl_onednn_plugin include_dir library)
  file(STRINGS "${include_dir}/oneapi/dnnl/dnnl_version.h" lines REGEX "#define DNNL_VERSION_(MAJOR|MINOR) ")
  string(REGEX MATCH "MAJOR ([0-9]+)" _ "${lines}")
  set(major "${CMAKE_MATCH_1}")
  string(REGEX MATCH "MINOR ([0-9]+)" _ "${lines}")
  set(minor "${CMAKE_MATCH_1}")
  set(target "netcl-bench-onednn${major}.${minor}")
  if(TARGET ${target})
    message(STATUS "netcl-bench: oneDNN ${major}.${minor} at ${library} already has a plugin; skipped")
    return()
  endif()
  add_library(${target} MODULE ${PROJECT_SOURCE_DIR}/tools/netcl-bench/onednn/OneDnnPlugin.cpp)
  # The system's include folder is searched anyway (and naming it breaks libstdc++'s #include_next);
  # any other goes first, so a 3.x plugin never sees the system's 2.x headers.
  string(REGEX REPLACE "/+$" "" include_dir "${include_dir}")  # find_path leaves a trailing slash
  if(NOT include_dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    target_include_directories(${target} SYSTEM BEFORE PRIVATE "${include_dir}")
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  target_link_libraries(${target} PRIVATE netcl "${library}")
  get_filename_component(library_dir "${library}" DIRECTORY)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}
    INSTALL_RPATH "$ORIGIN/..;${library_dir}")
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/netcl-bench)
  add_dependencies(netcl-bench ${target})
  message(STATUS "netcl-bench: oneDNN ${major}.${minor} peer built in (${library})")
endfunction()

option(NETCL_BENCH_ONEDNN "netcl-bench: time oneDNN's convolution as the CPU peer when oneDNN is found" ON)
target_link_libraries(netcl-bench PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(netcl-bench PRIVATE
  NETCL_BENCH_PLUGIN_INSTALL_DIR="../${CMAKE_INSTALL_LIBDIR}/netcl-bench")
if(NETCL_BENCH_ONEDNN)
  set(found FALSE)
  foreach(root IN LISTS NETCL_ONEDNN_ROOTS)
    unset(include_dir)
    unset(library)
    find_path(include_dir oneapi/dnnl/dnnl.hpp PATHS "${root}/include" NO_DEFAULT_PATH NO_CACHE)
    find_library(library NAMES dnnl PATHS "${root}/lib" NO_DEFAULT_PATH NO_CACHE)
    if(include_dir AND library)
      netcl_onednn_plugin("${include_dir}" "${library}")
      set(found TRUE)
    else()
      message(WARNING "netcl-bench: NETCL_ONEDNN_ROOTS names ${root}, which holds no oneDNN "
                      "(include/oneapi/dnnl/dnnl.hpp and lib/libdnnl.so)")
    endif()
  endforeach()
  unset(include_dir)
  unset(library)
  find_path(include_dir oneapi/dnnl/dnnl.hpp NO_CACHE)
  find_library(library NAMES dnnl NO_CACHE)
  if(include_dir AND library)
    netcl_onednn_plugin("${include_dir}" "${library}")
    set(found TRUE)
  endif()
  if(NOT found)
    message(STATUS "netcl-bench: oneDNN not found; its candidates will say \"oneDNN not built in\"")
  endif()
endif()
