" SPDX-License-Identifier: GPL-3.0-or-later
" The start page.
if exists('b:current_syntax')
  finish
endif
syntax match maildexHelloTitle '^\%(Welcome to maildex\|Saved searches\|All tags\|Search\):\?.*'
syntax match maildexHelloCount '^\s*\d\+\ze  '
highlight default link maildexHelloTitle Title
highlight default link maildexHelloCount Number
let b:current_syntax = 'maildexhello'
