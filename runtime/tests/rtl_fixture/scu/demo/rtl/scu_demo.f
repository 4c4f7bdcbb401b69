// SPDX-License-Identifier: MIT
scu/demo/rtl/scu_demo.sv
