#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

int specd_crc32c_hardware(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2"))) uint32_t specd_crc32c_update(uint32_t state, const uint8_t *bytes, size_t count) {
    uint64_t wide = state;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (count > 0) {
        narrow = __builtin_ia32_crc32qi(narrow, *bytes);
        bytes += 1;
        count -= 1;
    }
    return narrow;
}

#elif defined(__aarch64__) && defined(__linux__)

#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

int specd_crc32c_hardware(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }

__attribute__((target("crc"))) uint32_t specd_crc32c_update(uint32_t state, const uint8_t *bytes, size_t count) {
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        state = __builtin_arm_crc32cd(state, word);
        bytes += 8;
        count -= 8;
    }
    while (count > 0) {
        state = __builtin_arm_crc32cb(state, *bytes);
        bytes += 1;
        count -= 1;
    }
    return state;
}

#else

int specd_crc32c_hardware(void) { return 0; }

uint32_t specd_crc32c_update(uint32_t state, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return state;
}

#endif
