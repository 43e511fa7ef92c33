-- book/manuals.lua - a pandoc filter (book/build.sh): where a chapter first
-- names an instruction or a CUDA feature in code (`cp.async`,
-- `mma.sync.aligned...`, `__shfl_xor_sync`), that mention links to NVIDIA's
-- own description of it: the PTX ISA for the instructions, the CUDA C++
-- Programming Guide for the language and runtime. Once per chapter (a
-- level-1 heading starts the next one), never in a heading or a code block.
-- The links lead out of the book; nothing in it needs them to be read.
--
-- A code span names an entry when it is the name itself or the name followed
-- by a '.', '(' or '<' (`cp.async.wait_group`, `__syncthreads()`); the
-- longest name wins (`cp.async.bulk.tensor` before `cp.async`). To teach the
-- book a new one, add a line below.

local ptx = 'https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#'
local guide = 'https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#'
local manual = {
  ['cp.async.bulk.tensor'] = ptx .. 'data-movement-and-conversion-instructions-cp-async-bulk-tensor',
  ['cp.async.bulk'] = ptx .. 'data-movement-and-conversion-instructions-cp-async-bulk',
  ['cp.async'] = ptx .. 'data-movement-and-conversion-instructions-cp-async',
  ['mma.sync'] = ptx .. 'warp-level-matrix-instructions-mma',
  ['mma'] = ptx .. 'warp-level-matrix-instructions-mma',
  ['ldmatrix'] = ptx .. 'warp-level-matrix-instructions-ldmatrix',
  ['wgmma'] = ptx .. 'asynchronous-warpgroup-level-matrix-instructions',
  ['mbarrier'] = ptx .. 'parallel-synchronization-and-communication-instructions-mbarrier',
  ['__shfl_xor_sync'] = guide .. 'warp-shuffle-functions',
  ['__launch_bounds__'] = guide .. 'launch-bounds',
  ['__syncthreads'] = guide .. 'synchronization-functions',
  ['cudaGraphLaunch'] = guide .. 'cuda-graphs',
  ['cuTensorMapEncodeTiled'] = guide .. 'tensor-memory-access',
}

-- the entry a code span names, if any: the longest name it starts with
local function entry_of(text)
  local best = nil
  for name in pairs(manual) do
    local after = text:sub(#name + 1, #name + 1)
    if text:sub(1, #name) == name and (after == '' or after:match('[.(<]'))
       and (not best or #name > #best) then
      best = name
    end
  end
  return best
end

local linked = {}  -- the entries this chapter has linked already

local function link_code(code)
  local name = entry_of(code.text)
  if not name or linked[manual[name]] then return nil end
  linked[manual[name]] = true
  return pandoc.Link({code}, manual[name], '', pandoc.Attr('', {'manual'}))
end

-- a list of inlines in order, into emphasis and spans but not into links
-- (a link in a link is no link) or images
local function walk_inlines(inlines)
  for k, inline in ipairs(inlines) do
    if inline.t == 'Code' then
      inlines[k] = link_code(inline) or inline
    elseif inline.t == 'Emph' or inline.t == 'Strong' or inline.t == 'Span'
           or inline.t == 'Quoted' or inline.t == 'Underline' then
      inline.content = walk_inlines(inline.content)
      inlines[k] = inline
    end
  end
  return inlines
end

local function walk_text(block)
  block.content = walk_inlines(block.content)
  return block
end

-- blocks in order: a chapter's title forgets what the last one linked;
-- headings keep their code as it is
local function walk_blocks(blocks)
  for k, block in ipairs(blocks) do
    if block.t == 'Header' then
      if block.level == 1 then linked = {} end
    elseif block.t == 'Para' or block.t == 'Plain' then
      blocks[k] = walk_text(block)
    else  -- walk_block walks what the block holds, not the block
      blocks[k] = pandoc.walk_block(block, {Para = walk_text, Plain = walk_text})
    end
  end
  return blocks
end

return {{Pandoc = function(doc) doc.blocks = walk_blocks(doc.blocks); return doc end}}
