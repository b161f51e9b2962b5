# Profile-guided optimisation of the optimised builds (issue 38): the command is built
# a first time instrumented (-fprofile-generate), run over the captures committed in
# captures/ (real kernels' transfers and crafted edge cases; never the benchmark's
# captures), and the build proper then compiles every file with the counts that run
# left (-fprofile-use): GCC lays out the branches the packets take, and inlines what
# they call, by those counts. On test/bench's captures it took 7.6 % of the command's
# instructions and about a tenth of its CPU time (test/bench/README.md).
#
# The first build is this same tree, configured with the same compiler and flags by
# ExternalProject in <build>/pgo, so that every file's control flow matches the one the
# counts were taken on (a mismatch is a warning, and that function is optimised as
# without a profile). Its objects lie under the same relative paths as the build
# proper's, so its counts (.gcda, beside each object) are copied over by path.
# -fprofile-partial-training: a function the run never entered (a format wiretap
# reads, an error path) is optimised as without a profile, not for size.
include(ExternalProject)
# the command alone; under make, in the build's own jobs
if(CMAKE_GENERATOR MATCHES "Make")
  set(TCPDIAG_PGO_BUILD $(MAKE) tcpdiag_cmd)
else()
  cmake_host_system_information(RESULT TCPDIAG_PGO_JOBS QUERY NUMBER_OF_LOGICAL_CORES)
  set(TCPDIAG_PGO_BUILD ${CMAKE_COMMAND} --build <BINARY_DIR> --target tcpdiag_cmd --parallel ${TCPDIAG_PGO_JOBS})
endif()

set(TCPDIAG_PGO_DIR "${CMAKE_BINARY_DIR}/pgo")
set(TCPDIAG_PGO_STAMP "${TCPDIAG_PGO_DIR}/profile.stamp")

ExternalProject_Add(tcpdiag_pgo_training
  SOURCE_DIR "${CMAKE_SOURCE_DIR}"
  BINARY_DIR "${TCPDIAG_PGO_DIR}/build"
  PREFIX "${TCPDIAG_PGO_DIR}"
  CMAKE_ARGS
    -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
    "-DCMAKE_C_FLAGS=${CMAKE_C_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
    "-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}"
    -DTCPDIAG_VERSION=${TCPDIAG_VERSION}
    -DTCPDIAG_PGO_PHASE=generate
    -DTCPDIAG_UNIT_TESTS=OFF
  BUILD_COMMAND ${TCPDIAG_PGO_BUILD}
  # the training run: the counts are written when each run of the command exits
  INSTALL_COMMAND ${CMAKE_COMMAND} -DBUILD=<BINARY_DIR> -DCAPTURES=${CMAKE_SOURCE_DIR}/captures
                  -DINTO=${CMAKE_BINARY_DIR} -DSTAMP=${TCPDIAG_PGO_STAMP}
                  -P ${CMAKE_SOURCE_DIR}/cmake/pgo-train.cmake
  BUILD_ALWAYS ON
  BUILD_BYPRODUCTS "${TCPDIAG_PGO_STAMP}"
  USES_TERMINAL_BUILD ON)

# Every target given compiles with the counts, after the training run, and again when
# the counts change.
function(tcpdiag_use_profile)
  foreach(target IN LISTS ARGN)
    add_dependencies(${target} tcpdiag_pgo_training)
    target_compile_options(${target} PRIVATE -fprofile-use -fprofile-partial-training -Wno-missing-profile
                           -Wno-error=coverage-mismatch)
    get_target_property(sources ${target} SOURCES)
    set_property(SOURCE ${sources} APPEND PROPERTY OBJECT_DEPENDS "${TCPDIAG_PGO_STAMP}")
  endforeach()
endfunction()
