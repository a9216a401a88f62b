// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_config.c - libFuzzer target: the configuration parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brute_config cfg, before;
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	log_set_quiet(true);
	config_defaults(&cfg);
	before = cfg;
	/* a rejected file leaves the configuration untouched */
	if (config_parse_string("fuzz.conf", text, &cfg) < 0 && memcmp(&cfg, &before, sizeof(cfg)) != 0)
		abort();
	free(text);
	return 0;
}
