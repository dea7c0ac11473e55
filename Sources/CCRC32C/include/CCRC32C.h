#ifndef SPECD_CCRC32C_H
#define SPECD_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C with the CPU's own instruction (SSE 4.2 on x86-64, the CRC32 extension on AArch64), which Swift cannot
   reach. Every log record and snapshot is checked with it, so at a million users it was a tenth of a cold start.
   specd_crc32c_hardware() says whether the instruction exists on this CPU; without it the Swift table code runs. */
int specd_crc32c_hardware(void);
/* Updates a running CRC state (already inverted, as the table code keeps it) over count bytes. Only call it when
   specd_crc32c_hardware() returned non-zero. */
uint32_t specd_crc32c_update(uint32_t state, const uint8_t *bytes, size_t count);

#endif
