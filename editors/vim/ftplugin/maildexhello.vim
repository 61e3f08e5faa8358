" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of the start page (maildex://hello).
if exists('b:did_maildex_maildexhello')
  finish
endif
let b:did_maildex_maildexhello = 1
nnoremap <buffer> <silent> <CR> :call maildex#hello#enter()<CR>
nnoremap <buffer> s :Maildex<Space>
nnoremap <buffer> <silent> = :call maildex#hello#open()<CR>
nnoremap <buffer> <silent> N :call maildex#hello#poll()<CR>
nnoremap <buffer> <silent> m :MaildexCompose<CR>
nnoremap <buffer> <silent> q :call maildex#util#close()<CR>
