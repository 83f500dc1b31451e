/*
 * A small static musl program for tests/unit/test_elf.c: `make unit` builds
 * it (build/user/elf-sample, and a static-pie twin) so the ELF parser is
 * checked against what musl-gcc really emits: text, read-only data, data,
 * bss and a PT_TLS segment. It also runs: it exits 0 when its data is right.
 */
#include <stdio.h>

static __thread int tls_counter = 3;
static int data_value = 39;
static char bss_buffer[8192];
static const char message[] = "elf-sample";

int main(void)
{
	tls_counter += data_value;
	bss_buffer[sizeof(bss_buffer) - 1] = (char)tls_counter;
	printf("%s: %d\n", message, bss_buffer[sizeof(bss_buffer) - 1]);
	return tls_counter == 42 ? 0 : 1;
}
