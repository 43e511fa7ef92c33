-- book/sources.lua - a pandoc filter for the HTML book only (book/build.sh):
-- the whole code is one click away. The weaver marks where a file's code
-- starts (a div .source-file naming it) and where it hid lines (a div
-- .hidden-code with the file and the first and last line); here the first
-- becomes a link to a page that shows the whole file with its line numbers,
-- the second a link to the first hidden line on that page; the note over a
-- change (.changed-from) links the earlier function's file to its lines. book/split.mjs
-- lists the pages linked (src/NAME.html) and book/build.sh writes them. In
-- the PDF and the EPUB both stay the one quiet line of text they are.

-- a source file's page: its path under src/, .html added
local function page_of(path)
  return 'src/' .. path .. '.html'
end

local function link_div(div, target)
  local inlines = pandoc.utils.blocks_to_inlines(div.content)
  div.content = {pandoc.Plain({pandoc.Link(inlines, target)})}
  return div
end

-- the file's name alone becomes the link (the note's "chapter 3" is a link
-- of crossref.lua already, and links do not nest)
local function link_name(div, target)
  return div:walk({
    Code = function(code)
      if code.text == div.attributes.source then return pandoc.Link({code}, target) end
    end,
  })
end

function Div(div)
  local path = div.attributes.source
  if not path then return nil end
  local line = page_of(path) .. '#L-' .. (div.attributes.first or '1')
  if div.classes:includes('source-file') then
    return link_div(div, page_of(path))
  elseif div.classes:includes('hidden-code') or div.classes:includes('unchanged') then
    return link_div(div, line)
  elseif div.classes:includes('changed-from') then
    -- a change (book:changes): the earlier function, at its first line
    return link_name(div, line)
  end
end
