// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What libxiw exports: it is built with -fvisibility=hidden, and only what
// carries XIW_API is in its dynamic symbol table (README, "libxiw").
#pragma once

#define XIW_API __attribute__((visibility("default")))
