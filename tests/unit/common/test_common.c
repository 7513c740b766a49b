/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lr_common.h"

static void
parse_u64_suffixes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(lr_parse_u64("64", &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(lr_parse_u64("10k", &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(lr_parse_u64("14.88M", &v), 0);
	assert_int_equal(v, 14880000);
	assert_int_equal(lr_parse_u64("1e6", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(lr_parse_u64("1G", &v), 0);
	assert_int_equal(v, 1000000000);
}

static void
parse_u64_rejects(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(lr_parse_u64("", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("12x", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("1.5", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("1e30", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("nan", &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void
parse_seconds(void **state)
{
	double s;

	(void)state;
	assert_int_equal(lr_parse_seconds("1.5", &s), 0);
	assert_true(s == 1.5);
	assert_int_equal(lr_parse_seconds("-1", &s), -EINVAL);
	assert_int_equal(lr_parse_seconds("1s", &s), -EINVAL);
	assert_int_equal(lr_parse_seconds("inf", &s), -EINVAL);
}

static void
err_message_names_cause(void **state)
{
	(void)state;
	lr_err_clear();
	assert_string_equal(lr_errmsg(), "");
	assert_int_equal(lr_err(EINVAL, "port %s: %u rx queues > max %u", "p0", 8, 4),
			 -EINVAL);
	assert_string_equal(lr_errmsg(),
			    "port p0: 8 rx queues > max 4 (Invalid argument)");
	assert_null(lr_err_null(ENOMEM, "flow: table"));
	assert_string_equal(lr_errmsg(), "flow: table (Cannot allocate memory)");
}

static void
frame_bytes_counts_fcs(void **state)
{
	(void)state;
	/* Table 1 of the ESS paper counts header and FCS: 60 B in the mbuf
	 * is a 64 B frame. */
	assert_int_equal(lr_frame_bytes(60), 64);
	assert_int_equal(lr_frame_bytes(9014), LR_FRAME_MAX_BYTES);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_u64_suffixes),
		cmocka_unit_test(parse_u64_rejects),
		cmocka_unit_test(parse_seconds),
		cmocka_unit_test(err_message_names_cause),
		cmocka_unit_test(frame_bytes_counts_fcs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
