-- lead_ins.lua - a paragraph that introduces a figure or a table (it ends
-- with a colon and the figure or table comes next) is wrapped in a div of
-- class lead-in, which book.css keeps on the page of what it introduces:
-- a lead-in alone at the foot of a page, its figure overleaf, reads as a
-- sentence cut off.

local function is_figure_or_table(block)
  if block == nil then
    return false
  end
  if block.t == "Table" then
    return true
  end
  -- an implicit figure: a paragraph of one image (pandoc 2.17)
  return block.t == "Para" and #block.content == 1 and block.content[1].t == "Image"
end

local function ends_with_colon(block)
  if block.t ~= "Para" then
    return false
  end
  local last = block.content[#block.content]
  return last ~= nil and last.t == "Str" and last.text:match(":$") ~= nil
end

local function mark(blocks)
  local marked = {}
  for i, block in ipairs(blocks) do
    if ends_with_colon(block) and is_figure_or_table(blocks[i + 1]) then
      marked[#marked + 1] = pandoc.Div({block}, pandoc.Attr("", {"lead-in"}))
    else
      marked[#marked + 1] = block
    end
  end
  return marked
end

function Div(div)
  div.content = mark(div.content)
  return div
end

function Pandoc(doc)
  doc.blocks = mark(doc.blocks)
  return doc
end
