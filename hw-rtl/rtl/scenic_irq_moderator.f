// SPDX-License-Identifier: MIT
// scenic_irq_moderator: sources, relative to hw-rtl/, in dependency order
rtl/scenic_irq_moderator.sv
