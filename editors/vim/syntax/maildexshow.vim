" SPDX-License-Identifier: GPL-3.0-or-later
" A thread: header lines, headers, buttons, quotes and signatures.
if exists('b:current_syntax')
  finish
endif
syntax match maildexShowHeaderLine '^\s*\S.* ([^()]*) ([^()]*)$'
syntax match maildexShowHeader '^\s*\%(Subject\|To\|Cc\|Date\|From\):'
syntax match maildexShowButton '^\s*\[ .* \]$'
syntax match maildexShowQuote '^\s*>.*$'
highlight default link maildexShowHeaderLine Title
highlight default link maildexShowHeader Identifier
highlight default link maildexShowButton Special
highlight default link maildexShowQuote Comment
let b:current_syntax = 'maildexshow'
