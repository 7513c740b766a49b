/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/doctor's CPU lists: sysfs's cpulist (and EAL's -l), EAL's --lcores
 * map with the main lcore taken out, and the list printed back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lr_doctor.h"

static struct lr_doctor_cpus set;

static char *
str(const struct lr_doctor_cpus *s)
{
	static char buf[256];

	return lr_doctor_cpulist_str(s, buf, sizeof(buf));
}

static void
test_cpulist(void **state)
{
	(void)state;
	assert_int_equal(lr_doctor_cpulist("0-3,8,10-11\n", &set), 7);
	assert_string_equal(str(&set), "0-3,8,10-11");
	assert_int_equal(lr_doctor_cpulist("", &set), 0);
	assert_string_equal(str(&set), "");
	assert_int_equal(lr_doctor_cpulist("5", &set), 1);
	assert_string_equal(str(&set), "5");
	/* Overlaps are counted once. */
	assert_int_equal(lr_doctor_cpulist("1-4,2-3", &set), 4);
	assert_int_equal(lr_doctor_cpulist("1023", &set), 1);
	assert_int_equal(lr_doctor_cpulist("1024", &set), -EINVAL);
	assert_int_equal(lr_doctor_cpulist("3-1", &set), -EINVAL);
	assert_int_equal(lr_doctor_cpulist("a", &set), -EINVAL);
	assert_int_equal(lr_doctor_cpulist("1;2", &set), -EINVAL);
	/* A kernel without nohz_full writes "(null)": no CPU, not a list. */
	assert_true(lr_doctor_cpulist("(null)", &set) < 0);
}

static void
test_lcores(void **state)
{
	int main_cpu;

	(void)state;
	/* -l: the lowest lcore is the main one, on its own CPU. */
	assert_int_equal(lr_doctor_lcores("2-5", -1, &set, &main_cpu), 0);
	assert_int_equal(main_cpu, 2);
	assert_string_equal(str(&set), "3-5");
	assert_int_equal(lr_doctor_lcores("7,3-4", -1, &set, &main_cpu), 0);
	assert_int_equal(main_cpu, 3);
	assert_string_equal(str(&set), "4,7");
	/* --main-lcore. */
	assert_int_equal(lr_doctor_lcores("2-5", 4, &set, &main_cpu), 0);
	assert_int_equal(main_cpu, 4);
	assert_string_equal(str(&set), "2-3,5");
	/* --lcores: lcores 1-3 all on CPU 9, lcore 0 on CPU 8. */
	assert_int_equal(lr_doctor_lcores("0@8,(1-3)@9", -1, &set, &main_cpu), 0);
	assert_int_equal(main_cpu, 8);
	assert_string_equal(str(&set), "9");
	/* A CPU set: the lcore floats over it. */
	assert_int_equal(lr_doctor_lcores("0@0,1@(10-11),(2,4)@(12,14)", -1, &set,
					  &main_cpu), 0);
	assert_int_equal(main_cpu, 0);
	assert_string_equal(str(&set), "10-12,14");
	/* Groups without @ are lcores on their own CPUs. */
	assert_int_equal(lr_doctor_lcores("(0-1),5", -1, &set, &main_cpu), 0);
	assert_string_equal(str(&set), "1,5");
	assert_int_equal(lr_doctor_lcores("", -1, &set, &main_cpu), -EINVAL);
	assert_int_equal(lr_doctor_lcores("(1-2", -1, &set, &main_cpu), -EINVAL);
	assert_int_equal(lr_doctor_lcores("1@", -1, &set, &main_cpu), -EINVAL);
	assert_int_equal(lr_doctor_lcores("1@2@3", -1, &set, &main_cpu), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_lcores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
