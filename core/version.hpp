// The program's version (CMake's project version, a compile definition of xcorr_core: no
// generated header, so every build folder compiles core with the same flags and ccache shares
// the objects between configurations; scripts/test.sh).
#pragma once
namespace xcorr {
inline constexpr const char* kVersion = XCORR_VERSION;
}  // namespace xcorr
