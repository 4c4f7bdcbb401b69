// SPDX-License-Identifier: MIT
// MSI-X interrupt moderation for one vector (SCENIC paper section 7.1: irq_coal / irq_time).
//
// Events accumulate in a pending counter: event_cnt of them per cycle (0..2^EV_W-1), so the ETH
// block can feed "RX frame written" and "TX command completed" in the same cycle (the regmap's
// IRQ_COAL counts both). An interrupt request is raised when
//   * the count threshold is reached:  irq_coal != 0 && pending >= irq_coal, or
//   * the timeout has elapsed:         ticks since the first unsignalled event >= irq_time,
// and the vector is enabled (irq_en = ~ETH IRQ_MASK: masked while NAPI polls, unmasked to re-arm).
//
// Time unit: irq_time counts ticks of TICK_CYCLES clock cycles (TICK_CYCLES = 250 gives 1 us at
// 250 MHz). The prescaler restarts with the first unsignalled event, so the timeout is exact:
// irq_valid rises irq_time*TICK_CYCLES + 1 cycles after the edge that accepted that event
// (irq_time = 0: one cycle after it, i.e. no moderation). irq_coal = 0 disables the count
// threshold (timer only). Latency is therefore always bounded by irq_time*TICK_CYCLES + 1 cycles
// while irq_en is set.
//
// irq_valid/irq_ready is a request/acknowledge handshake to the MSI-X controller. irq_events
// reports the events covered by the request; events that arrive while a request is outstanding
// are covered by it (like a PBA pending bit). At the handshake the pending count restarts (at 1
// if events arrive in that same cycle, which then also restart the timer).
// Counters saturate at their all-ones value.
module scenic_irq_moderator #(
    parameter int unsigned CNT_W       = 16,
    parameter int unsigned EV_W        = 2,
    parameter int unsigned TIME_W      = 16,
    parameter int unsigned TICK_CYCLES = 250
) (
    input  logic              clk,
    input  logic              rst,

    // configuration (register file), used combinationally: changes apply at once
    input  logic [CNT_W-1:0]  irq_coal,
    input  logic [TIME_W-1:0] irq_time,
    input  logic              irq_en,

    // events this cycle
    input  logic [EV_W-1:0]   event_cnt,

    // interrupt request to the MSI-X controller
    output logic              irq_valid,
    input  logic              irq_ready,
    output logic [CNT_W-1:0]  irq_events
);

  localparam int unsigned DIV_W = (TICK_CYCLES > 1) ? $clog2(TICK_CYCLES) : 1;
  localparam logic [DIV_W-1:0] DIV_LAST = DIV_W'(TICK_CYCLES - 1);

  // illegal parameter combinations stop elaboration
  if (CNT_W < 1 || CNT_W > 32) begin : g_bad_cnt_w
    $error("CNT_W must be 1..32");
  end
  if (EV_W < 1 || EV_W > CNT_W) begin : g_bad_ev_w
    $error("EV_W must be 1..CNT_W");
  end
  if (TIME_W < 1 || TIME_W > 32) begin : g_bad_time_w
    $error("TIME_W must be 1..32");
  end
  if (TICK_CYCLES < 1 || TICK_CYCLES > 65536) begin : g_bad_tick
    $error("TICK_CYCLES must be 1..65536");
  end

  logic [CNT_W-1:0]  pend_q, pend_d, pend_base;
  logic [TIME_W-1:0] time_q, time_d;
  logic [DIV_W-1:0]  div_q, div_d;
  logic              valid_q, valid_d;
  logic              hs, hold, fire;
  logic [CNT_W:0]    pend_sum;

  always_comb begin
    hs        = valid_q & irq_ready;
    hold      = valid_q & ~irq_ready;
    pend_base = hs ? '0 : pend_q;

    // pending count, saturating
    pend_sum = {1'b0, pend_base} + (CNT_W+1)'(event_cnt);
    pend_d   = pend_sum[CNT_W] ? '1 : pend_sum[CNT_W-1:0];

    // timer: runs while something was already pending before this cycle
    div_d  = '0;
    time_d = '0;
    if (pend_base != '0) begin
      if (div_q == DIV_LAST) begin
        div_d  = '0;
        time_d = (time_q == '1) ? time_q : time_q + 1'b1;
      end else begin
        div_d  = div_q + 1'b1;
        time_d = time_q;
      end
    end

    fire = irq_en && pend_d != '0 &&
           ((irq_coal != '0 && pend_d >= irq_coal) || time_d >= irq_time);
    valid_d = hold | fire;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      pend_q  <= '0;
      time_q  <= '0;
      div_q   <= '0;
      valid_q <= 1'b0;
    end else begin
      pend_q  <= pend_d;
      time_q  <= time_d;
      div_q   <= div_d;
      valid_q <= valid_d;
    end
  end

  assign irq_valid  = valid_q;
  assign irq_events = pend_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // a raised request always covers at least one event
      assert (!valid_q || pend_q != '0) else $error("irq_valid with no pending event");
    end
  end
`endif

endmodule
