/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiw's own config.h for the rdma-core 44.0 provider headers vendored in
 * ../include/. This is NOT rdma-core's file: rdma-core's CMake generates its
 * config.h from buildlib/config.h.in, and Debian ships no copy. The headers
 * vendored here (driver.h, cmd_ioctl.h, ccan/{check_type,container_of,str}.h)
 * include <config.h> / "config.h" and use only the macros below; each is given
 * the value Debian's 44.0-2 build of rdma-core had. Nothing else from
 * config.h.in is defined, so a provider source that uses more (PACKAGE_VERSION,
 * VERBS_PROVIDER_DIR, HAVE_FULL_SYMBOL_VERSIONS, ...) fails to build rather
 * than getting a guess.
 */
#ifndef XIW_RDMA_CORE_44_CONFIG_H
#define XIW_RDMA_CORE_44_CONFIG_H

/*
 * The private ABI between libibverbs and its providers. driver.h turns it
 * into the symbol verbs_register_driver_34. Upstream CMakeLists.txt at v44.0:
 * set(IBVERBS_PABI_VERSION "34"). Debian's libibverbs.so.1.14.44.0 exports
 * verbs_register_driver_34, ibv_cmd_* etc. at version IBVERBS_PRIVATE_34
 * (objdump -T), its providers are named lib*-rdmav34.so and import
 * verbs_register_driver_34@IBVERBS_PRIVATE_34. A provider built with another
 * value does not load.
 */
#define IBVERBS_PABI_VERSION 34

/*
 * Hard-coded to 1 in buildlib/config.h.in (not probed); used by ccan/.
 */
#define HAVE_TYPEOF 1
#define HAVE_ISBLANK 1
#define HAVE_BUILTIN_TYPES_COMPATIBLE_P 1

/*
 * #cmakedefine'd from RDMA_Check_C_Compiles(HAVE_FUNC_ATTRIBUTE_ALWAYS_INLINE
 * ...), which any GCC or clang passes, bookworm's GCC 12 included; used by
 * util/compiler.h (ALWAYS_INLINE).
 */
#define HAVE_FUNC_ATTRIBUTE_ALWAYS_INLINE 1

/*
 * IOCTL_MODE: Debian's debian/rules passes no -DIOCTL_MODE, so rdma-core's
 * default "both" applies (IOCTL_MODE_NUM 3): use the ioctl() interface and
 * fall back to write() commands at run time. cmd_ioctl.h and cmd_write.h
 * compile that fallback into the provider's inline command paths; this is
 * also the only mode that works with any kernel.
 */
#define VERBS_IOCTL_ONLY 0
#define VERBS_WRITE_ONLY 0

#endif
