-- book/math.lua - a pandoc filter (book/build.sh): every formula of the book,
-- inline ($...$) and display ($$...$$), becomes an SVG image drawn once at
-- build time by MathJax (book/tex2svg.mjs), so the HTML, the EPUB and the
-- PDF show typeset mathematics that needs no script, font or network.
--
-- The SVG files are kept in $BOOK_MATH (build/book/math), named by a hash
-- of the formula: a build draws only formulas it has not drawn before, and
-- the three formats share them. Each image carries its TeX as alt text (for
-- a screen reader, and a copy-paste) and the size and baseline MathJax
-- computed, in ex of the surrounding text, so an inline formula sits on the
-- line as text does. Text that looks like TeX but is no formula (a `$`
-- whose closing one follows a space, "$j < $ x", is no math to pandoc) is
-- reported on stderr; tests/suites/70-book.sh fails the book on it.

local dir = os.getenv('BOOK_MATH') or 'build/book/math'
local script = (PANDOC_SCRIPT_FILE:match('^(.*)/') or '.') .. '/tex2svg.mjs'
-- part of every name: change it when tex2svg.mjs draws differently
local drawing = 'mathjax-full 3.2.2 svg fontCache none'

local function name_of(math)
  local kind = math.mathtype == 'DisplayMath' and 'display' or 'inline'
  return pandoc.utils.sha1(drawing .. '\0' .. kind .. '\0' .. math.text), kind
end

local function exists(path)
  local file = io.open(path, 'r')
  if file then file:close() end
  return file ~= nil
end

-- 1. every formula the book holds, once
local wanted, records = {}, {}
local function collect(math)
  local name, kind = name_of(math)
  if not wanted[name] and not exists(dir .. '/' .. name .. '.svg') then
    wanted[name] = true
    records[#records + 1] = name .. '\t' .. kind .. '\t' .. math.text .. '\0'
  end
end

-- 2. the ones not drawn yet, in one run of MathJax
local function draw(doc)
  if #records > 0 then
    pandoc.pipe('node', {script, dir}, table.concat(records))
  end
  return doc
end

-- 3. each formula replaced by its image
local function image_of(math)
  local name, kind = name_of(math)
  local path = dir .. '/' .. name .. '.svg'
  local file = assert(io.open(path, 'r'))
  local head = file:read(4096)
  file:close()
  local width = head:match('width="([%d.]+)ex"')
  local height = head:match('height="([%d.]+)ex"')
  local shift = head:match('vertical%-align: *(%-?[%d.]+)ex') or '0'
  local style = string.format('width: %sex; height: %sex; vertical-align: %sex', width, height, shift)
  if kind == 'display' then  -- one wider than the text shrinks to fit it, keeping its shape
    style = string.format('width: %sex; max-width: 100%%; height: auto', width)
  end
  -- the image is img.math; a display formula's span around it, .math.display
  local tex = math.text:gsub('^%s+', ''):gsub('%s+$', '')
  local image = pandoc.Image({pandoc.Str(tex)}, path, '',
                             pandoc.Attr('', {'math'}, {style = style}))
  if kind == 'display' then
    return pandoc.Span({image}, pandoc.Attr('', {'math', 'display'}))
  end
  return image
end

-- TeX that pandoc left as text: a dollar or a backslash command in prose,
-- reported with the words around it so that it can be found in the source
local function looks_like_tex(text)
  return text:find('%$') or text:find('\\%a') or text:find('[_^]{')
end

local function report(block)
  local words, first = {}, nil
  pandoc.walk_block(block, {
    Str = function(str)
      words[#words + 1] = str.text
      if not first and looks_like_tex(str.text) then first = #words end
    end,
    Code = function(code) words[#words + 1] = code.text end,
  })
  if first then
    local context = table.concat(words, ' ', math.max(1, first - 5), math.min(#words, first + 5))
    io.stderr:write('book/math.lua: TeX left as text, no formula: "' .. context .. '"\n')
  end
end

return {
  {Math = collect},
  {Pandoc = draw},
  {Para = report, Plain = report, Header = report},
  {Math = image_of},
}
