# SPDX-License-Identifier: MIT
"""The control path's in-memory formats: loading and checking ([[enum]], [[struct]], [[command]],
[[event]] of scenic-regs.toml), and one module per output format."""
