#!/usr/bin/env bash
# tests/install_deps.sh - `make deps`: the distribution packages the workbook
# needs besides the CUDA Toolkit (which comes from NVIDIA, not from here).
#   libcmocka-dev   the host unit tests' framework
#   pandoc          the book (HTML, EPUB; PDF through weasyprint)
#   weasyprint      pandoc's PDF engine
#   gnuplot-nox     the plots, and the figures drawn from the code
#   graphviz        the figures that are diagrams (plots/figures/*.dot)
#   chromium        the browser test of the rendered book
set -e
packages="libcmocka-dev pandoc weasyprint gnuplot-nox graphviz chromium make gcc"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $packages
