/* What the example's main needs from the board (startup.c). */
#ifndef BOARD_H
#define BOARD_H
void board_print(const char *s);
void board_exit(int code);
#endif
