#!/usr/bin/env bash
# tools/install_deps.sh - `make deps`: the distribution packages the workbook
# needs besides the CUDA Toolkit (which comes from NVIDIA, not from here),
# then the book's two npm packages.
#   libcmocka-dev   the host unit tests' framework
#   pandoc          the book (HTML, EPUB; PDF through weasyprint)
#   weasyprint      pandoc's PDF engine
#   poppler-utils   pdftotext, with which the book's test counts the PDF's pages
#   unzip           the book's test looks into the EPUB
#   epubcheck       the book's test validates the EPUB (run as java -jar)
#   gnuplot-nox     the plots, and the figures drawn from the code
#   graphviz        the figures that are diagrams (plots/figures/*.dot)
#   chromium        the browser test of the rendered book
#   patch           the mutants (chapters/*/mutant*.patch) and the grader's fixtures
#   bubblewrap      bwrap, the grader's sandbox for students' code (solutions/sandbox.sh);
#                   a machine with no registry takes its .deb: solutions/README.md says how
#   nodejs npm      run mathjax-full (make book draws the formulas with it) and
#                   playwright-core, the browser test's driver (only when no
#                   node is installed: a newer one from elsewhere is kept)
#   book/node_modules  mathjax-full and playwright-core at the versions
#                   book/package-lock.json pins
set -e
cd "$(dirname "$0")/.."
packages="libcmocka-dev pandoc weasyprint poppler-utils unzip epubcheck gnuplot-nox graphviz chromium patch
          make gcc bubblewrap"
command -v node >/dev/null && command -v npm >/dev/null || packages="$packages nodejs npm"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $packages
(cd book && npm ci --no-audit --no-fund)
