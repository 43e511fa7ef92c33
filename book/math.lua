-- book/math.lua - a pandoc filter (book/build.sh): every formula of the book,
-- inline ($...$) and display ($$...$$), becomes an SVG image drawn once at
-- build time by MathJax (book/tex2svg.mjs), so the HTML, the EPUB and the
-- PDF show typeset mathematics that needs no script, font or network.
--
-- The SVG files are kept in $BOOK_MATH (build/book/math), named by a hash
-- of the formula: a build draws only formulas it has not drawn before, and
-- the three formats share them. Each image carries the size and baseline
-- MathJax computed, in ex of the surrounding text, so an inline formula sits
-- on the line as text does.
--
-- Under each image lies the formula's text as a reader would type it
-- (book/math_text.mjs, NAME.txt beside NAME.svg: "T × T", "x_small"), in a
-- span.math-text that book/book.css makes transparent and lays over the
-- image, squeezed to its width: it changes nothing a reader sees, but the
-- PDF's text layer holds it (pdftotext, a search, a copy), a copy from the
-- HTML carries it, a browser's find and the HTML book's search
-- (book/split.mjs) find it, and a screen reader reads it (the image itself
-- is decorative, alt=""). No TeX is left in the book.
--
-- Text that looks like TeX but is no formula (a `$` whose closing one
-- follows a space, "$j < $ x", is no math to pandoc) is reported on stderr;
-- tests/suites/70-book.sh fails the book on it.

local dir = os.getenv('BOOK_MATH') or 'build/book/math'
local script = (PANDOC_SCRIPT_FILE:match('^(.*)/') or '.') .. '/tex2svg.mjs'
-- part of every name: change it when tex2svg.mjs draws differently, or
-- math_text.mjs writes another text
local drawing = 'mathjax-full 3.2.2 svg fontCache none, text 1'

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
  if not wanted[name] and not (exists(dir .. '/' .. name .. '.svg') and exists(dir .. '/' .. name .. '.txt')) then
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

-- How wide TEXT is, in em: book/book.css sets it in DejaVu Sans Mono,
-- where every character is 0.602 em wide but a combining accent (X̂), none
local function text_width(text)
  local chars = 0
  for _, code in utf8.codes(text) do
    if not (code >= 0x300 and code < 0x370 or code >= 0x20d0 and code < 0x2100) then
      chars = chars + 1
    end
  end
  return 0.602 * math.max(chars, 1)
end
-- an ex of the serif around a formula (DejaVu Serif's x-height), in em
local ex = 0.52

local function read(path, bytes)
  local file = assert(io.open(path, 'r'))
  local text = file:read(bytes)
  file:close()
  return text
end

-- 3. each formula replaced by its image, and its text under it
local function image_of(formula)
  local name, kind = name_of(formula)
  local path = dir .. '/' .. name .. '.svg'
  local head = read(path, 4096)
  local text = read(dir .. '/' .. name .. '.txt', 'a'):gsub('%s+$', '')
  local width = head:match('width="([%d.]+)ex"')
  local height = head:match('height="([%d.]+)ex"')
  local shift = head:match('vertical%-align: *(%-?[%d.]+)ex') or '0'
  local style = string.format('width: %sex; height: %sex; vertical-align: %sex', width, height, shift)
  if kind == 'display' then  -- one wider than the text shrinks to fit it, keeping its shape
    style = string.format('width: %sex; max-width: 100%%; height: auto', width)
  end
  -- the image is img.math, decorative: its text is the span before it
  local image = pandoc.Image({}, path, '', pandoc.Attr('', {'math'}, {{'alt', ''}, {'style', style}}))
  -- the text stretched or squeezed to the image's width, so that it
  -- reaches over no word beside the formula and leaves no gap before the
  -- next (where pdftotext would see two columns)
  local stretch = tonumber(width) * ex / text_width(text)
  stretch = math.max(0.1, math.min(3, stretch))
  local under = pandoc.Span({pandoc.Str(text)}, pandoc.Attr('', {'math-text'},
                            {style = string.format('transform: scaleX(%.3f)', stretch)}))
  -- span.math.inline or span.math.display around both
  return pandoc.Span({under, image}, pandoc.Attr('', {'math', kind}))
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
