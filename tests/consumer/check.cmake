# cmake -P: install the built netcl into WORK_DIR/prefix; run the installed
# tools from there (they must find the installed library through their
# RPATH, with no LD_LIBRARY_PATH); then configure, build and run the consumer
# project against the installed package with find_package(netcl) alone.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR VERSION)
  if(NOT ${var})
    message(FATAL_ERROR "check.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  set(run_output "${out}${err}" PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Only public headers are installed, and nothing of the build or source tree.
file(GLOB_RECURSE installed_headers RELATIVE ${prefix}/include ${prefix}/include/*)
message("installed headers: ${installed_headers}")
foreach(header IN LISTS installed_headers)
  if(NOT header MATCHES "^netcl/[A-Za-z0-9]+\\.hpp$")
    message(FATAL_ERROR "unexpected installed file include/${header}")
  endif()
endforeach()
file(GLOB_RECURSE sonames ${prefix}/lib*/libnetcl.so.*)
if(NOT sonames)
  message(FATAL_ERROR "no versioned libnetcl.so.* installed")
endif()

# The installed tools, run from the prefix with a clean library path.
foreach(tool IN ITEMS netcl-info netcl-bench netcl-tune)
  if(NOT EXISTS ${prefix}/bin/${tool})
    message(FATAL_ERROR "${tool} was not installed")
  endif()
endforeach()
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${prefix}/bin/netcl-info)
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${prefix}/bin/netcl-bench --shape 1,3,9,9,4,3,3,1,1
    --strategies naive,onednn --repeat 1)
# Its oneDNN plugins (one per oneDNN the build found) load from the install folder, each with its oneDNN.
file(GLOB plugins ${prefix}/lib*/netcl-bench/libnetcl-bench-onednn*.so)
message("installed oneDNN plugins: ${plugins}")
if(run_output MATCHES "NOT loaded")
  message(FATAL_ERROR "an installed oneDNN plugin did not load")
endif()
if(plugins AND NOT run_output MATCHES "vs oneDNN")
  message(FATAL_ERROR "oneDNN plugins installed, but the installed netcl-bench ran no oneDNN")
endif()
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${prefix}/bin/netcl-tune --help)

run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release -DNETCL_EXPECTED_VERSION=${VERSION})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK_DIR}/build/consumer)
