-- book/math.lua - a pandoc filter (book/build.sh): math written the way TeX
-- readers write it, turned into what pandoc 2.17's MathML renders well in a
-- browser and in the PDF (book/book.css sets the PDF's math on one line):
-- \mathrel{+}= becomes one operator, "+=", not "+" and "=" spaced apart;
-- \lVert and \rVert become \Vert, the double bar U+2016 that DejaVu Serif
-- has (texmath writes U+2225 for them, which it lacks).
function Math(math)
  math.text = math.text:gsub('\\mathrel{%+}%s*=', '\\mathrel{\\text{+=}}'):gsub('\\[lr]Vert', '\\Vert')
  return math
end
