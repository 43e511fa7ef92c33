-- book/changes.lua - a pandoc filter for every format (book/build.sh): a
-- change (book/changes.c) keeps the colours of CUDA code. The weaver writes
-- a change as one block of the diff syntax, each line behind its mark ('+'
-- added, '-' removed, ' ' kept, "@@ ... @@" a hunk's header), which pandoc
-- would colour as a diff alone: green and red lines with no keyword, type or
-- comment told apart. Here the block becomes runs of lines of one kind,
-- each a CUDA block of its own in a div of class change-added,
-- change-removed, change-kept or change-hunk (book.css draws them as one
-- listing, with green and red bands), inside a div of class change.
--
-- A diff keeps its marks, so that a line says what it is in grey print too.
-- A marked change (the new function whole, with its file's line numbers:
-- class marked) drops them: its band and its numbers say it, and its lines
-- keep the 100 columns the page holds (a mark made them 101, and they
-- wrapped in the PDF). Each run of a marked change numbers its lines from
-- where the run starts in the file.
--
-- One cost: a run is coloured on its own, so a comment that a change splits
-- across runs is coloured as a comment only in the run that opens it. The
-- chapters' changes split none (tests/suites/71-listings.sh checks).

local kinds = { ['+'] = 'added', ['-'] = 'removed', ['@'] = 'hunk' }

function CodeBlock(block)
  if not block.classes:includes('change') then return nil end
  local marked = block.classes:includes('marked')
  local number = tonumber(block.attributes.startFrom) or 1
  local runs = {}
  for line in (block.text .. '\n'):gmatch('(.-)\n') do
    local kind = kinds[line:sub(1, 1)] or 'kept'
    local text = line
    if marked then text = line:sub(2) end
    local run = runs[#runs]
    if not run or run.kind ~= kind then
      run = { kind = kind, first = number, lines = {} }
      runs[#runs + 1] = run
    end
    run.lines[#run.lines + 1] = text
    -- a removed line and a hunk's header hold no line of the new file
    if kind == 'added' or kind == 'kept' then number = number + 1 end
  end
  local blocks = {}
  for _, run in ipairs(runs) do
    local classes, attributes = {}, {}
    if run.kind ~= 'hunk' then classes[1] = 'cuda' end
    if marked then
      classes[#classes + 1] = 'numberLines'
      attributes.startFrom = tostring(run.first)
    end
    local code = pandoc.CodeBlock(table.concat(run.lines, '\n'), pandoc.Attr('', classes, attributes))
    -- in a div of its kind: pandoc puts a block's classes on its <pre>, and
    -- the band and the edge are drawn by the <div> around that
    blocks[#blocks + 1] = pandoc.Div({ code }, pandoc.Attr('', { 'change-' .. run.kind }))
  end
  return pandoc.Div(blocks, pandoc.Attr('', { 'change', marked and 'marked' or 'diff' }))
end
