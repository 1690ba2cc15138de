# Build number and commit: -D values win, then git, else 0/unknown (the
# "build 0, commit unknown" of a source archive, as llama.cpp's cmake/build-info.cmake).
if (NOT DEFINED LLAMA_BUILD_NUMBER OR NOT DEFINED LLAMA_BUILD_COMMIT)
    find_package(Git QUIET)
    set(_num 0)
    set(_commit unknown)
    if (GIT_FOUND AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.git")
        execute_process(COMMAND ${GIT_EXECUTABLE} rev-list --count HEAD
            WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE _num
            OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _r1)
        execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
            WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE _commit
            OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _r2)
    else()
        message(WARNING "Git not found. Build info will not be accurate.")
    endif()
    if (NOT DEFINED LLAMA_BUILD_NUMBER)
        set(LLAMA_BUILD_NUMBER ${_num})
    endif()
    if (NOT DEFINED LLAMA_BUILD_COMMIT)
        set(LLAMA_BUILD_COMMIT ${_commit})
    endif()
endif()
set(LLAMA_COMPILER "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
set(LLAMA_BUILD_TARGET "${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}")
message(STATUS "llama.cpp build info: build ${LLAMA_BUILD_NUMBER}, commit ${LLAMA_BUILD_COMMIT}")
