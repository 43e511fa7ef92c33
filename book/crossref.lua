-- book/crossref.lua - a pandoc filter (book/build.sh): the book's
-- cross-references become links, and its figures get their numbers.
--
-- In the prose, "chapter 5", "Chapter 5's", "chapters 5 and 8", "section
-- 2.3", "figure 4" and "exercise 2.1" link to that chapter's title, that
-- numbered section, that figure or that exercise's heading, wherever it is
-- (in the HTML, book/split.mjs points each #id at the page that holds it).
-- Numbers are counted here as pandoc counts them (--number-sections: the
-- numbered headings in order, unnumbered ones aside), so a chapter moved,
-- split or renamed needs no change here. Headings, link texts and figure
-- captions are left alone. A number the book does not have is reported on
-- stderr and left as text.
--
-- Figures (a paragraph holding one image with a caption) are numbered in
-- the order they come, "Figure N." in front of the caption: a number in
-- the text, not a CSS counter, so that it is the same on every page of the
-- HTML, in the EPUB and in the PDF.

local targets = {chapter = {}, section = {}, figure = {}, exercise = {}}
local counters = {0, 0, 0, 0, 0, 0}
local figure_count = 0

-- 1. what can be referred to
local function collect_header(header)
  if not header.classes:includes('unnumbered') then
    local level = header.level
    counters[level] = counters[level] + 1
    for deeper = level + 1, 6 do counters[deeper] = 0 end
    local number = table.concat(counters, '.', 1, level)
    targets.section[number] = header.identifier
    if level == 1 then targets.chapter[number] = header.identifier end
  end
  local exercise = pandoc.utils.stringify(header):match('^Exercise (%d+%.%d+)')
  if exercise and header.identifier ~= '' then targets.exercise[exercise] = header.identifier end
end

local function number_figure(para)
  local image = para.content[1]
  if #para.content ~= 1 or image.t ~= 'Image' or not image.title:match('^fig:') then return nil end
  figure_count = figure_count + 1
  if image.identifier == '' then image.identifier = 'figure-' .. figure_count end
  targets.figure[tostring(figure_count)] = image.identifier
  local label = pandoc.Strong({pandoc.Str('Figure'), pandoc.Space(), pandoc.Str(figure_count .. '.')})
  table.insert(image.caption, 1, label)
  table.insert(image.caption, 2, pandoc.Space())
  return para
end

-- 2. the references: a word, a space, a number
local kinds = {
  chapter = 'chapter', chapters = 'chapter', section = 'section', sections = 'section',
  figure = 'figure', figures = 'figure', exercise = 'exercise', exercises = 'exercise',
}
local joiners = {['and'] = true, ['to'] = true, ['or'] = true}

-- the number at the start of a word and what follows it ("5's" -> 5, "'s"):
-- "1.5" for sections and exercises, a whole number for the others; a
-- sentence's full stop is not part of it
local function split_number(kind, text)
  local number, rest
  if kind == 'section' or kind == 'exercise' then
    number, rest = text:match('^(%d+%.%d[%d.]*)(.*)$')
    if not number and kind == 'section' then number, rest = text:match('^(%d+)(.*)$') end
  else
    number, rest = text:match('^(%d+)(.*)$')
  end
  if number and number:sub(-1) == '.' then number, rest = number:sub(1, -2), '.' .. rest end
  return number, rest
end

local function target_of(kind, number)
  local id = targets[kind][number]
  if kind == 'section' and not id then id = targets.chapter[number] end
  if not id then
    io.stderr:write(string.format('book/crossref.lua: no %s %s in the book; left as text\n', kind, number))
  end
  return id
end

local function is_space(inline)
  return inline and (inline.t == 'Space' or inline.t == 'SoftBreak')
end

local link_references  -- recursive: emphasis and spans hold inlines too

link_references = function(inlines)
  local out = pandoc.List()
  local k = 1
  local listing = nil  -- after "chapters 5", the kind of the numbers that may follow ("and 8")
  while k <= #inlines do
    local here, gap, word = inlines[k], inlines[k + 1], inlines[k + 2]
    -- the word, after an opening bracket or quote glued to it: "(chapter 5)"
    local opening, name = '', nil
    if here.t == 'Str' then opening, name = here.text:match('^([(%[\'"\u{201C}\u{2018}]*)(%a+)$') end
    local kind = name and kinds[name:lower()]
    local number, rest
    if kind and is_space(gap) and word and word.t == 'Str' then
      number, rest = split_number(kind, word.text)
    end
    local id = number and target_of(kind, number)
    if id then
      if opening ~= '' then out:insert(pandoc.Str(opening)) end
      out:insert(pandoc.Link({pandoc.Str(name), pandoc.Space(), pandoc.Str(number)}, '#' .. id))
      if rest ~= '' then out:insert(pandoc.Str(rest)) end
      listing = (name:lower():sub(-1) == 's' and (rest == '' or rest == ',')) and kind or nil
      k = k + 3
    elseif listing and here.t == 'Str' and here.text:match('^%d') then
      number, rest = split_number(listing, here.text)
      id = number and target_of(listing, number)
      if id then
        out:insert(pandoc.Link({pandoc.Str(number)}, '#' .. id))
        if rest ~= '' then out:insert(pandoc.Str(rest)) end
        if rest ~= '' and rest ~= ',' then listing = nil end
      else
        out:insert(here)
        listing = nil
      end
      k = k + 1
    else
      if here.t == 'Emph' or here.t == 'Strong' or here.t == 'Span' or here.t == 'Quoted' then
        here.content = link_references(here.content)
      end
      if listing and not (is_space(here) or (here.t == 'Str' and joiners[here.text])) then
        listing = nil
      end
      out:insert(here)
      k = k + 1
    end
  end
  return out
end

local function link_block(block)
  block.content = link_references(block.content)
  return block
end

return {
  {Header = collect_header, Para = number_figure},
  {Para = link_block, Plain = link_block},
}
