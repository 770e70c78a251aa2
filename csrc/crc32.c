/*
 * crc32.c — CRC-32 as zlib computes it (IEEE 802.3, reflected polynomial
 * 0xEDB88320, init and final xor 0xFFFFFFFF), used to detect a corrupted
 * model image. Four bits at a time from a 16-entry constant table: no
 * global state to initialise and 64 bytes of .rodata instead of 1 KiB.
 */
#include "format.h"

static const uint32_t nk_crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};

uint32_t nk_crc32(uint32_t crc, const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    crc = ~crc;
    while (n-- != 0) {
        crc ^= *p++;
        crc = (crc >> 4) ^ nk_crc_nibble[crc & 15u];
        crc = (crc >> 4) ^ nk_crc_nibble[crc & 15u];
    }
    return ~crc;
}
