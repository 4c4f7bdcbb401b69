// SPDX-License-Identifier: MIT
// DCQCN reaction point (Zhu et al., SIGCOMM 2015; SCENIC paper section 5.2 / Figure 2: the
// "full DCQCN implementation" reference CC module) for one flow, with a per-packet send decision.
//
// Units: rates in bytes per cycle with FRAC fractional bits (RATE_W bits; at 250 MHz,
// 200 Gb/s = 100 B/cycle = 100 << FRAC); alpha in [0, 1] with 1.0 = 2^15 (16 bits).
// Configuration (registers, used combinationally): cfg_rate_max (line rate, also the start rate),
// cfg_rate_min, cfg_rate_ai / cfg_rate_hai (additive / hyper increase steps), cfg_g_shift
// (g = 2^-g_shift), cfg_alpha_period and cfg_timer_period (cycles), cfg_byte_thresh (bytes),
// cfg_f (fast-recovery stages), cfg_burst (token cap, bytes).
//
// Per cycle, in this order:
//  * CNP (s_cnp_valid): Rt = Rc; Rc = max(Rc - (Rc*alpha >> 16), rate_min) [= Rc*(1-alpha/2)];
//    alpha = alpha - (alpha >> g) + (2^15 >> g); the alpha timer, the rate timer, the byte counter
//    and the stage counters i (timer) and j (bytes) restart at 0. A CNP overrides everything
//    below in its cycle.
//  * else alpha timer: every cfg_alpha_period cycles without a CNP: alpha -= alpha >> g.
//  * else rate increase events: the rate timer expires every cfg_timer_period cycles (i += 1),
//    the byte counter every cfg_byte_thresh bytes sent (j += 1, the excess carries over); one
//    increase step per cycle with either or both events, using the incremented i, j:
//      max(i, j) <  F  : fast recovery   Rc = (Rt + Rc) / 2
//      min(i, j) >= F  : hyper increase  Rt += rate_hai, Rc = (Rt + Rc) / 2
//      otherwise       : additive        Rt += rate_ai,  Rc = (Rt + Rc) / 2
//    with Rt clamped to rate_max. i and j saturate at 255.
//  * Rate limiter: token bucket, tokens (bytes << FRAC, signed) += Rc every cycle, capped at
//    cfg_burst << FRAC. The per-packet decision (s_pkt_len -> m_dec_send) is "send" when
//    tokens >= 0 (the packet's bytes are then charged, tokens may go negative: no packet is split
//    or starved), else "defer" (retry later). Bytes of sent packets feed the byte counter.
// Pipeline: request register, then decision + state update + decision register: decision latency
// 2 cycles from the s_pkt handshake to m_dec_valid, one decision per cycle.
module scenic_dcqcn #(
    parameter int unsigned RATE_W = 24,
    parameter int unsigned FRAC   = 12,
    parameter int unsigned LEN_W  = 14,
    parameter int unsigned TIME_W = 20,
    parameter int unsigned BYTE_W = 24,
    parameter int unsigned CNT_W  = 32
) (
    input  logic              clk,
    input  logic              rst,

    input  logic [RATE_W-1:0] cfg_rate_max,
    input  logic [RATE_W-1:0] cfg_rate_min,
    input  logic [RATE_W-1:0] cfg_rate_ai,
    input  logic [RATE_W-1:0] cfg_rate_hai,
    input  logic [3:0]        cfg_g_shift,
    input  logic [TIME_W-1:0] cfg_alpha_period,
    input  logic [TIME_W-1:0] cfg_timer_period,
    input  logic [BYTE_W-1:0] cfg_byte_thresh,
    input  logic [7:0]        cfg_f,
    input  logic [LEN_W-1:0]  cfg_burst,

    // congestion notification packets for this flow
    input  logic              s_cnp_valid,

    // per-packet send requests (packet length in bytes)
    input  logic [LEN_W-1:0]  s_pkt_len,
    input  logic              s_pkt_valid,
    output logic              s_pkt_ready,

    // per-packet decisions, in request order
    output logic              m_dec_send,
    output logic              m_dec_valid,
    input  logic              m_dec_ready,

    // state (for the register file / tests)
    output logic [RATE_W-1:0] rate_cur,
    output logic [RATE_W-1:0] rate_tgt,
    output logic [15:0]       alpha,
    output logic [CNT_W-1:0]  stat_cnp,
    output logic [CNT_W-1:0]  stat_send,
    output logic [CNT_W-1:0]  stat_defer
);

  localparam int unsigned TOK_W = RATE_W + LEN_W + FRAC + 2; // signed token bucket
  localparam logic [15:0] A_ONE = 16'h8000;

  if (RATE_W < 8 || RATE_W > 40) begin : g_bad_rate_w
    $error("RATE_W must be 8..40");
  end
  if (FRAC > 16 || FRAC >= RATE_W) begin : g_bad_frac
    $error("FRAC must be 0..16 and < RATE_W");
  end
  if (LEN_W < 6 || LEN_W > 16) begin : g_bad_len_w
    $error("LEN_W must be 6..16");
  end
  if (TIME_W < 1 || TIME_W > 32 || BYTE_W < LEN_W || BYTE_W > 40) begin : g_bad_time_w
    $error("TIME_W must be 1..32, BYTE_W LEN_W..40");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  logic [RATE_W-1:0]       rc_q, rc_d, rt_q, rt_d;
  logic [15:0]             alpha_q, alpha_d;
  logic [TIME_W-1:0]       at_q, at_d, rtmr_q, rtmr_d;
  logic [BYTE_W:0]         bc_q, bc_d;
  logic [7:0]              i_q, i_d, j_q, j_d;
  logic signed [TOK_W-1:0] tok_q, tok_d;
  logic                    init_q;  // rates start at rate_max after reset

  logic             req_v_q, dec_v_q, dec_send_q;
  logic [LEN_W-1:0] req_len_q;
  logic [CNT_W-1:0] c_cnp_q, c_send_q, c_defer_q;

  logic dec_free, go, send, t_ev, b_ev;

  assign dec_free    = !dec_v_q || m_dec_ready;
  assign go          = req_v_q && dec_free;
  assign s_pkt_ready = !req_v_q || go;
  assign send        = !tok_q[TOK_W-1];   // tokens >= 0

  always_comb begin
    logic [RATE_W-1:0]   dec;
    logic [15:0]         unused_frac;  // Rc*alpha below the 2^16 scale: truncated
    logic [RATE_W:0]     sum, rt_inc;
    logic [RATE_W-1:0]   rc_new;
    logic [RATE_W-1:0]   rc_cur, rt_cur;
    logic [7:0]          i_n, j_n, mx, mn;
    logic signed [TOK_W-1:0] cap, t;

    rc_cur = init_q ? cfg_rate_max : rc_q;
    rt_cur = init_q ? cfg_rate_max : rt_q;
    rc_d    = rc_cur;
    rt_d    = rt_cur;
    alpha_d = alpha_q;
    at_d    = at_q;
    rtmr_d  = rtmr_q;
    bc_d    = bc_q + ((go && send) ? (BYTE_W+1)'(req_len_q) : '0);
    i_d     = i_q;
    j_d     = j_q;
    t_ev    = 1'b0;
    b_ev    = 1'b0;
    dec         = '0;
    unused_frac = '0;
    sum     = '0;
    rt_inc  = '0;
    rc_new  = '0;
    i_n     = i_q;
    j_n     = j_q;
    mx      = '0;
    mn      = '0;

    if (s_cnp_valid) begin
      {dec, unused_frac} = (RATE_W+16)'(rc_cur) * (RATE_W+16)'(alpha_q);
      rc_new  = rc_cur - dec;   // dec = Rc*alpha/2 <= Rc/2 (alpha <= 1.0): no borrow
      rt_d    = rc_cur;
      rc_d    = (rc_new < cfg_rate_min) ? cfg_rate_min : rc_new;
      alpha_d = alpha_q - (alpha_q >> cfg_g_shift) + (A_ONE >> cfg_g_shift);
      at_d    = '0;
      rtmr_d  = '0;
      bc_d    = '0;
      i_d     = '0;
      j_d     = '0;
    end else begin
      // alpha decay timer
      if (at_q + 1'b1 >= cfg_alpha_period) begin
        at_d    = '0;
        alpha_d = alpha_q - (alpha_q >> cfg_g_shift);
      end else begin
        at_d = at_q + 1'b1;
      end
      // rate increase events
      if (rtmr_q + 1'b1 >= cfg_timer_period) begin
        rtmr_d = '0;
        t_ev   = 1'b1;
      end else begin
        rtmr_d = rtmr_q + 1'b1;
      end
      if (bc_d >= (BYTE_W+1)'(cfg_byte_thresh) && cfg_byte_thresh != '0) begin
        bc_d = bc_d - (BYTE_W+1)'(cfg_byte_thresh);
        b_ev = 1'b1;
      end
      i_n = (t_ev && i_q != 8'hff) ? i_q + 1'b1 : i_q;
      j_n = (b_ev && j_q != 8'hff) ? j_q + 1'b1 : j_q;
      i_d = i_n;
      j_d = j_n;
      mx  = (i_n > j_n) ? i_n : j_n;
      mn  = (i_n > j_n) ? j_n : i_n;
      if (t_ev || b_ev) begin
        if (mx < cfg_f) begin
          rt_inc = {1'b0, rt_cur};
        end else if (mn >= cfg_f) begin
          rt_inc = {1'b0, rt_cur} + {1'b0, cfg_rate_hai};
        end else begin
          rt_inc = {1'b0, rt_cur} + {1'b0, cfg_rate_ai};
        end
        if (rt_inc > {1'b0, cfg_rate_max}) begin
          rt_inc = {1'b0, cfg_rate_max};
        end
        rt_d = rt_inc[RATE_W-1:0];
        sum  = rt_inc + {1'b0, rc_cur};
        sum  = sum >> 1;
        rc_d = sum[RATE_W-1:0];
      end
    end

    // token bucket
    cap = TOK_W'({cfg_burst, FRAC'(0)});
    t   = tok_q + TOK_W'(rc_cur);
    if (go && send) begin
      t = t - TOK_W'({req_len_q, FRAC'(0)});
    end
    tok_d = (t > cap) ? cap : t;
  end

  always_ff @(posedge clk) begin
    if (s_pkt_valid && s_pkt_ready) begin
      req_len_q <= s_pkt_len;
    end
    if (go) begin
      dec_send_q <= send;
    end
    if (rst) begin
      init_q    <= 1'b1;
      rc_q      <= '0;
      rt_q      <= '0;
      alpha_q   <= A_ONE;
      at_q      <= '0;
      rtmr_q    <= '0;
      bc_q      <= '0;
      i_q       <= '0;
      j_q       <= '0;
      tok_q     <= '0;
      req_v_q   <= 1'b0;
      dec_v_q   <= 1'b0;
      c_cnp_q   <= '0;
      c_send_q  <= '0;
      c_defer_q <= '0;
    end else begin
      init_q  <= 1'b0;
      rc_q    <= rc_d;
      rt_q    <= rt_d;
      alpha_q <= alpha_d;
      at_q    <= at_d;
      rtmr_q  <= rtmr_d;
      bc_q    <= bc_d;
      i_q     <= i_d;
      j_q     <= j_d;
      tok_q   <= tok_d;
      if (s_pkt_valid && s_pkt_ready) begin
        req_v_q <= 1'b1;
      end else if (go) begin
        req_v_q <= 1'b0;
      end
      if (go) begin
        dec_v_q <= 1'b1;
      end else if (m_dec_ready) begin
        dec_v_q <= 1'b0;
      end
      if (s_cnp_valid && c_cnp_q != '1) c_cnp_q <= c_cnp_q + 1'b1;
      if (go && send && c_send_q != '1) c_send_q <= c_send_q + 1'b1;
      if (go && !send && c_defer_q != '1) c_defer_q <= c_defer_q + 1'b1;
    end
  end

  assign m_dec_valid = dec_v_q;
  assign m_dec_send  = dec_send_q;
  assign rate_cur    = init_q ? cfg_rate_max : rc_q;
  assign rate_tgt    = init_q ? cfg_rate_max : rt_q;
  assign alpha       = alpha_q;
  assign stat_cnp    = c_cnp_q;
  assign stat_send   = c_send_q;
  assign stat_defer  = c_defer_q;

endmodule
