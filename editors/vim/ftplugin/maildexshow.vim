" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of a thread (maildex://thread/ID), notmuch.el's show mode.
if exists('b:did_maildex_maildexshow')
  finish
endif
let b:did_maildex_maildexshow = 1
nnoremap <buffer> <silent> <CR> :call maildex#show#enter()<CR>
nnoremap <buffer> <silent> n :call maildex#show#next(1)<CR>
nnoremap <buffer> <silent> p :call maildex#show#next(-1)<CR>
nnoremap <buffer> <silent> + :call maildex#show#tag_prompt('+')<CR>
nnoremap <buffer> <silent> - :call maildex#show#tag_prompt('-')<CR>
nnoremap <buffer> <silent> a :call maildex#show#archive(0)<CR>
nnoremap <buffer> <silent> A :call maildex#show#archive(1)<CR>
nnoremap <buffer> <silent> u :call maildex#show#toggle_unread()<CR>
nnoremap <buffer> <silent> s :call maildex#show#save()<CR>
nnoremap <buffer> <silent> o :call maildex#show#open_part()<CR>
nnoremap <buffer> <silent> r :call maildex#show#reply(0)<CR>
nnoremap <buffer> <silent> R :call maildex#show#reply(1)<CR>
nnoremap <buffer> <silent> f :call maildex#show#forward()<CR>
nnoremap <buffer> <silent> m :MaildexCompose<CR>
nnoremap <buffer> <silent> = :call maildex#show#refresh()<CR>
nnoremap <buffer> <silent> q :call maildex#util#close()<CR>
nnoremap <buffer> <silent> x :call maildex#util#close()<CR>
setlocal fillchars+=fold:\ 
