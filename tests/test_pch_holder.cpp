// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled only for its precompiled header (tests/CMakeLists.txt): the tests of one kind reuse it.
