# The training run of the profile-guided build (ProfileGuided.cmake), as a script:
#   cmake -DBUILD=<instrumented build> -DCAPTURES=<folder> -DINTO=<build proper>
#         -DSTAMP=<file> -P pgo-train.cmake
# Runs the instrumented command over the folder's captures once, and copies the counts
# it left beside each object to the same place in the build proper. Nothing is run
# while the instrumented command is older than the last run (STAMP.ran), and the stamp
# is touched only when a count changed: the build proper recompiles only then.
set(command "${BUILD}/cmd/tcpdiag")
if(EXISTS "${STAMP}" AND EXISTS "${STAMP}.ran" AND "${STAMP}.ran" IS_NEWER_THAN "${command}")
  return()
endif()
# a program's counts add up over its runs: this run's alone
file(GLOB_RECURSE stale "${BUILD}/*.gcda")
if(stale)
  file(REMOVE ${stale})
endif()
execute_process(COMMAND "${command}" "${CAPTURES}" OUTPUT_FILE /dev/null ERROR_VARIABLE said RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the profile's training run (${command} ${CAPTURES}) exited ${rc}: ${said}")
endif()
file(GLOB_RECURSE counts RELATIVE "${BUILD}" "${BUILD}/CMakeFiles/*.gcda")
if(NOT counts)
  message(FATAL_ERROR "the profile's training run left no counts under ${BUILD}/CMakeFiles")
endif()
set(changed FALSE)
foreach(count IN LISTS counts)
  set(to "${INTO}/${count}")
  if(EXISTS "${to}")
    file(SHA256 "${to}" before)
    file(SHA256 "${BUILD}/${count}" after)
    if(before STREQUAL after)
      continue()
    endif()
  endif()
  get_filename_component(to_dir "${to}" DIRECTORY)
  file(COPY "${BUILD}/${count}" DESTINATION "${to_dir}")
  set(changed TRUE)
endforeach()
if(changed OR NOT EXISTS "${STAMP}")
  file(TOUCH "${STAMP}")
endif()
file(TOUCH "${STAMP}.ran")
