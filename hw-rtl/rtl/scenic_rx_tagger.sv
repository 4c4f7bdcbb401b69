// SPDX-License-Identifier: MIT
// RX metadata tagger (SCENIC paper section 7.1, Figure 3): the fallback path's RX engine. Takes
// the prefilter's classified host stream and writes every accepted frame into the unified RX ring
// with ONE DMA write: struct scenic_rx_tag (uapi/scenic_eth.h: len, flags = VALID | class << 1,
// seq) followed directly by the frame, into slot `alloc` at cfg_ring_addr + slot * stride.
// Behaves like the device model's qemu-device/model/src/eth_rx.cpp plus the drop rules of
// EthBlock::receive() it sits in (twin: scenic::dp::RxTagger):
//
//   runt      len < 14                                               -> stat_drop_runt
//   oversize  len > cfg_max_frame, or ring valid and len > stride-8,
//             or len > HW_MAX (FIFO_BYTES - KEEP_W, >= 9018)         -> stat_drop_oversize
//   disabled  !cfg_rx_en or the ring registers are invalid           -> stat_drop_disabled
//   ring full (alloc + 1) mod size == head                          -> stat_drop_ring_full
//   written   one command + one data packet on the DMA ports         -> stat_frames, stat_bytes
// (in this order, as in EthBlock::receive; the MAC filter is upstream and DMA errors do not
// exist on this interface: posted writes). Ring rules as eth_ring.hpp: size a power of two
// 8..32768, stride a multiple of 64 (>= 64), address 64-byte aligned, no wrap of the bus.
//
// Store and forward: the tag carries the length, so a frame is written into the FIFO (FIFO_BYTES,
// BRAM-shaped: synchronous read) and committed at tlast; runt/oversize/disabled frames are
// rewound there (an oversize frame stops being stored once it passes the limit). The output side
// takes committed frames in order: ring full -> skipped (read pointer jumps over it in one cycle);
// else one command (m_cmd: address, bytes = 8 + len) and the data packet (m_dma: tag in lanes 0..7,
// the frame shifted by 8 bytes across beats: output beat j = frame bytes [j*K-8, j*K+K-8), K =
// DATA_W/8). The command is issued in the cycle its first data beat is produced (both output
// registers are AXI-stable); a DMA engine takes them as "command, then its data".
// Slot order: the slot (alloc) and the tag's seq are taken when the command is issued; RX_TAIL
// (rx_tail) advances when the write's last data beat has been accepted (rx_written pulses with
// the new value: writeback + interrupt event).
//
// Throughput: one output beat per cycle in steady state; a frame takes ceil((len+8)/K) output
// beats vs ceil(len/K) input beats, so only frames whose last beat holds more than K-8 bytes cost
// one extra beat (60/64-byte frames at 512 bit: 2 beats; never at 1024 bit for <= 120 bytes).
// Frame-to-frame: no bubble (the next frame starts in the cycle after the previous last beat).
// Latency: first output beat 2 cycles after the frame's tlast was accepted (plus store time).
//
// Config inputs are registered once (1 cycle); change them only while no frame is in flight
// (the register block's contract: RX_RING_* are written with RX disabled). cfg_ring_reset pulses
// when RX_RING_SIZE is written: alloc, tail and seq restart at 0 (the register block resets its
// RX_HEAD copy in the same cycle).
// tkeep must be contiguous from lane 0 and all-ones except on the last beat (asserted).
module scenic_rx_tagger #(
    parameter int unsigned DATA_W     = 512,
    parameter int unsigned FIFO_BYTES = 16384,
    parameter int unsigned CNT_W      = 32,
    localparam int unsigned KEEP_W    = DATA_W / 8
) (
    input  logic              clk,
    input  logic              rst,

    // ETH registers
    input  logic [63:0]       cfg_ring_addr,    // RX_RING_ADDR_HI:LO
    input  logic [31:0]       cfg_ring_stride,  // RX_RING_STRIDE
    input  logic [31:0]       cfg_ring_size,    // RX_RING_SIZE
    input  logic [14:0]       cfg_ring_head,    // RX_HEAD[14:0] (reduced modulo the size here)
    input  logic              cfg_ring_reset,   // pulse: RX_RING_SIZE written
    input  logic [15:0]       cfg_max_frame,    // MTU + 18
    input  logic              cfg_rx_en,        // CTRL.RX_EN and link up

    // classified frames (prefilter m_axis_host)
    input  logic [DATA_W-1:0] s_axis_tdata,
    input  logic [KEEP_W-1:0] s_axis_tkeep,
    input  logic              s_axis_tvalid,
    output logic              s_axis_tready,
    input  logic              s_axis_tlast,
    input  logic [1:0]        s_axis_tuser,     // class: 0 RoCE v2, 1 TCP, 2 other

    // DMA write commands, one per written frame, issued with its first data beat
    output logic [63:0]       m_cmd_addr,
    output logic [16:0]       m_cmd_bytes,      // 8 + len
    output logic              m_cmd_valid,
    input  logic              m_cmd_ready,

    // DMA write data: tag + frame, tlast on each write's last beat
    output logic [DATA_W-1:0] m_dma_tdata,
    output logic [KEEP_W-1:0] m_dma_tkeep,
    output logic              m_dma_tvalid,
    input  logic              m_dma_tready,
    output logic              m_dma_tlast,

    output logic [15:0]       rx_tail,          // RX_TAIL
    output logic              rx_written,       // one frame written, rx_tail is its new value

    output logic [CNT_W-1:0]  stat_frames,      // RX_FRAMES
    output logic [CNT_W-1:0]  stat_bytes,       // RX_BYTES (frame bytes, no tag)
    output logic [CNT_W-1:0]  stat_drop_ring_full,
    output logic [CNT_W-1:0]  stat_drop_runt,
    output logic [CNT_W-1:0]  stat_drop_oversize,
    output logic [CNT_W-1:0]  stat_drop_disabled
);

  localparam int unsigned DEPTH   = FIFO_BYTES / KEEP_W;
  localparam int unsigned AW      = $clog2(DEPTH);
  localparam int unsigned KW      = $clog2(KEEP_W);
  localparam int unsigned HW_MAX  = FIFO_BYTES - KEEP_W;   // longest frame the FIFO stores
  localparam int unsigned TAG_B   = 8;
  localparam int unsigned RUNT    = 14;

  if (DATA_W < 64 || DATA_W > 1024 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_data_w
    $error("DATA_W must be a power of two, 64..1024");
  end
  if ((FIFO_BYTES & (FIFO_BYTES - 1)) != 0 || FIFO_BYTES > 65536 || HW_MAX < 9018) begin : g_bad_fifo
    $error("FIFO_BYTES must be a power of two, 16 KiB..64 KiB (one 9018-byte frame plus a beat)");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  // ------------------------------------------------------------------ configuration stage
  logic        ring_ok_q;
  logic [14:0] mask_q;       // size - 1
  logic [14:0] head_q;       // RX_HEAD mod size
  logic [16:0] limit_q;      // longest frame accepted
  logic [63:0] base_q;
  logic [31:0] stride_q;

  logic        size_ok, stride_ok, area_ok;
  logic [46:0] area_bytes;
  logic [16:0] limit_d;
  logic [31:0] slot_room;
  always_comb begin
    size_ok   = cfg_ring_size >= 32'd8 && cfg_ring_size <= 32'd32768 &&
                (cfg_ring_size & (cfg_ring_size - 32'd1)) == 32'd0;
    stride_ok = cfg_ring_stride >= 32'd64 && cfg_ring_stride[5:0] == 6'd0;
    area_bytes = '0;
    for (int s = 3; s <= 15; s++) begin
      if (cfg_ring_size[s]) area_bytes = 47'(cfg_ring_stride) << s;
    end
    area_ok   = cfg_ring_addr[5:0] == 6'd0 && {17'd0, area_bytes} <= ~cfg_ring_addr;
    limit_d   = (17'(cfg_max_frame) < 17'(HW_MAX)) ? 17'(cfg_max_frame) : 17'(HW_MAX);
    slot_room = cfg_ring_stride - 32'(TAG_B);
    if (size_ok && stride_ok && area_ok && slot_room < 32'(limit_d)) limit_d = slot_room[16:0];
  end

  always_ff @(posedge clk) begin
    ring_ok_q <= size_ok && stride_ok && area_ok;
    mask_q    <= size_ok ? 15'(cfg_ring_size - 32'd1) : 15'd0;
    head_q    <= size_ok ? cfg_ring_head & 15'(cfg_ring_size - 32'd1) : 15'd0;
    limit_q   <= limit_d;
    base_q    <= cfg_ring_addr;
    stride_q  <= cfg_ring_stride;
  end

  // ------------------------------------------------------------------ input side: store
  logic [DATA_W-1:0] mem [DEPTH];
  logic [18:0]       info [DEPTH];           // {class, len} of committed frames
  logic [AW:0]       wr_q, wstart_q, rd_q, iw_q, iw_vis_q, ir_q;
  logic [16:0]       in_len_q, len_next;
  logic              in_drop_q;              // frame passed the limit: not stored any more
  logic [KW:0]       keep_cnt;
  logic              s_hs, wr_en, runt, over, dis, good;

  always_comb begin
    keep_cnt = '0;
    for (int i = 0; i < KEEP_W; i++) keep_cnt = keep_cnt + (KW+1)'(s_axis_tkeep[i]);
  end

  // saturating: frames longer than 128 KiB stay "longer than the limit"
  assign len_next = (in_len_q > 17'h1ffff - 17'(keep_cnt)) ? 17'h1ffff
                                                           : in_len_q + 17'(keep_cnt);
  assign s_axis_tready = in_drop_q || (wr_q - rd_q) != (AW+1)'(DEPTH);
  assign s_hs  = s_axis_tvalid && s_axis_tready;
  assign wr_en = s_hs && !in_drop_q;
  assign runt  = len_next < 17'(RUNT);
  assign over  = !runt && len_next > limit_q;
  assign dis   = !runt && !over && !(cfg_rx_en && ring_ok_q);
  assign good  = !runt && !over && !dis;

  always_ff @(posedge clk) begin
    if (wr_en) mem[wr_q[AW-1:0]] <= s_axis_tdata;
    if (s_hs && s_axis_tlast && good) info[iw_q[AW-1:0]] <= {s_axis_tuser, len_next};
  end

  // ------------------------------------------------------------------ output side
  logic [DATA_W-1:0] mem_q;                  // mem[rd_q] (synchronous read of rd_next)
  logic [AW:0]       rd_next;
  logic              avail, busy_q, o_free, c_free, full, start, skip, prod, pop, last;
  logic [16:0]       h_len, rem, rem_q, cur_len_q, out_len_q;
  logic [1:0]        h_cls;
  logic [AW:0]       h_beats, nin_q, nin;
  logic [14:0]       alloc_q, tail_q;
  logic [31:0]       seq_q;
  logic [63:0]       tag, carry_q, lo8;
  logic [DATA_W-1:0] out_data;
  logic [KEEP_W-1:0] out_keep;
  logic [46:0]       slot_off;               // alloc * stride: 15 x 32 bits

  assign slot_off = 47'(alloc_q) * 47'(stride_q);

  assign avail   = iw_vis_q != ir_q;
  assign h_len   = info[ir_q[AW-1:0]][16:0];
  assign h_cls   = info[ir_q[AW-1:0]][18:17];
  assign h_beats = (AW+1)'((h_len + 17'(KEEP_W - 1)) >> KW);
  assign o_free  = !m_dma_tvalid || m_dma_tready;
  assign c_free  = !m_cmd_valid || m_cmd_ready;
  assign full    = ((alloc_q + 15'd1) & mask_q) == head_q;
  assign skip    = !busy_q && avail && full;
  assign start   = !busy_q && avail && !full && o_free && c_free;
  assign prod    = start || (busy_q && o_free);
  assign nin     = start ? h_beats : nin_q;
  assign pop     = prod && nin != '0;
  assign rem     = start ? h_len + 17'(TAG_B) : rem_q;
  assign last    = rem <= 17'(KEEP_W);
  assign rd_next = rd_q + (pop ? (AW+1)'(1) : '0) + (skip ? h_beats : '0);
  // tag: len, flags = VALID | class << 1, seq (little endian, struct scenic_rx_tag)
  assign tag     = {seq_q, 13'd0, h_cls, 1'b1, h_len[15:0]};
  assign lo8     = start ? tag : carry_q;

  always_ff @(posedge clk) mem_q <= mem[rd_next[AW-1:0]];

  if (KEEP_W > TAG_B) begin : g_shift
    assign out_data = {mem_q[DATA_W-65:0], lo8};
  end else begin : g_tag_beat
    // 64-bit bus: the tag is a beat of its own, every frame beat moves one beat later
    assign out_data = lo8;
  end

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) out_keep[i] = 17'(i) < rem;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_q <= '0;
      wstart_q <= '0;
      rd_q <= '0;
      iw_q <= '0;
      iw_vis_q <= '0;
      ir_q <= '0;
      in_len_q <= '0;
      in_drop_q <= 1'b0;
      busy_q <= 1'b0;
      alloc_q <= '0;
      tail_q <= '0;
      seq_q <= '0;
      m_cmd_valid <= 1'b0;
      m_dma_tvalid <= 1'b0;
      rx_written <= 1'b0;
      stat_frames <= '0;
      stat_bytes <= '0;
      stat_drop_ring_full <= '0;
      stat_drop_runt <= '0;
      stat_drop_oversize <= '0;
      stat_drop_disabled <= '0;
    end else begin
      // input: store, then commit or rewind at tlast
      if (s_hs) begin
        if (s_axis_tlast) begin
          in_len_q <= '0;
          in_drop_q <= 1'b0;
          if (good) begin
            wr_q <= wr_q + (wr_en ? (AW+1)'(1) : '0);
            wstart_q <= wr_q + (wr_en ? (AW+1)'(1) : '0);
            iw_q <= iw_q + 1'b1;
          end else begin
            wr_q <= wstart_q;
          end
          if (runt) stat_drop_runt <= stat_drop_runt + 1'b1;
          if (over) stat_drop_oversize <= stat_drop_oversize + 1'b1;
          if (dis) stat_drop_disabled <= stat_drop_disabled + 1'b1;
        end else begin
          in_len_q <= len_next;
          if (len_next > limit_q) in_drop_q <= 1'b1;
          if (wr_en) wr_q <= wr_q + 1'b1;
        end
      end
      // a committed frame's beats are in mem one cycle before mem_q can show them
      iw_vis_q <= iw_q;

      // output
      rd_q <= rd_next;
      if (skip) begin
        ir_q <= ir_q + 1'b1;
        stat_drop_ring_full <= stat_drop_ring_full + 1'b1;
      end
      if (start) begin
        ir_q <= ir_q + 1'b1;
        alloc_q <= (alloc_q + 15'd1) & mask_q;
        seq_q <= seq_q + 1'b1;
      end
      if (prod) begin
        busy_q <= !last;
        rem_q <= rem - 17'(KEEP_W);
        nin_q <= nin - (pop ? (AW+1)'(1) : '0);
      end
      if (start) m_cmd_valid <= 1'b1;
      else if (m_cmd_ready) m_cmd_valid <= 1'b0;
      if (prod) m_dma_tvalid <= 1'b1;
      else if (m_dma_tready) m_dma_tvalid <= 1'b0;

      // RX_TAIL moves when the write's last beat is gone
      rx_written <= m_dma_tvalid && m_dma_tready && m_dma_tlast;
      if (m_dma_tvalid && m_dma_tready && m_dma_tlast) begin
        tail_q <= (tail_q + 15'd1) & mask_q;
        stat_frames <= stat_frames + 1'b1;
        stat_bytes <= CNT_W'(64'(stat_bytes) + 64'(out_len_q));
      end
      if (cfg_ring_reset) begin
        alloc_q <= '0;
        tail_q <= '0;
        seq_q <= '0;
      end
    end
  end

  // output registers: datapath, not reset
  always_ff @(posedge clk) begin
    if (prod) begin
      m_dma_tdata <= out_data;
      m_dma_tkeep <= out_keep;
      m_dma_tlast <= last;
      out_len_q <= start ? h_len : cur_len_q;
      carry_q <= mem_q[DATA_W-1 -: 64];
    end
    if (start) begin
      cur_len_q <= h_len;
      m_cmd_addr <= base_q + 64'(slot_off);
      m_cmd_bytes <= h_len + 17'(TAG_B);
    end
  end

  assign rx_tail = {1'b0, tail_q};

`ifndef SYNTHESIS
  logic keep_contig;
  always_comb begin
    keep_contig = 1'b1;
    for (int i = 1; i < KEEP_W; i++) begin
      if (s_axis_tkeep[i] && !s_axis_tkeep[i-1]) keep_contig = 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (!rst && s_axis_tvalid) begin
      assert (keep_contig) else $error("s_axis_tkeep not contiguous from lane 0");
      assert (s_axis_tlast || &s_axis_tkeep) else $error("partial tkeep on a non-last beat");
    end
    if (!rst) begin
      assert ((iw_q - ir_q) <= (wr_q - rd_q)) else $error("more frames than beats stored");
      assert (!(busy_q && start)) else $error("start while busy");
    end
  end
`endif

endmodule
