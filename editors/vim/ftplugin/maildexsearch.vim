" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of a search list (maildex://search/QUERY), notmuch.el's search mode.
if exists('b:did_maildex_maildexsearch')
  finish
endif
let b:did_maildex_maildexsearch = 1
nnoremap <buffer> <silent> <CR> :call maildex#search#show()<CR>
nnoremap <buffer> <silent> <Space> :call maildex#search#page_down()<CR>
nnoremap <buffer> <silent> n j
nnoremap <buffer> <silent> p k
nnoremap <buffer> <silent> + :call maildex#search#tag_prompt('+')<CR>
nnoremap <buffer> <silent> - :call maildex#search#tag_prompt('-')<CR>
xnoremap <buffer> <silent> + :call maildex#search#tag_prompt('+')<CR>
xnoremap <buffer> <silent> - :call maildex#search#tag_prompt('-')<CR>
nnoremap <buffer> <silent> a :call maildex#search#archive()<CR>
xnoremap <buffer> <silent> a :call maildex#search#archive()<CR>
nnoremap <buffer> <silent> u :call maildex#search#toggle_unread()<CR>
nnoremap <buffer> <silent> * :call maildex#search#tag_all()<CR>
nnoremap <buffer> <silent> = :call maildex#search#refresh()<CR>
nnoremap <buffer> <silent> o :call maildex#search#toggle_order()<CR>
nnoremap <buffer> <silent> l :call maildex#search#filter()<CR>
nnoremap <buffer> <silent> t :call maildex#search#filter_tag()<CR>
nnoremap <buffer> s :Maildex<Space>
nnoremap <buffer> <silent> r :call maildex#search#reply(0)<CR>
nnoremap <buffer> <silent> R :call maildex#search#reply(1)<CR>
nnoremap <buffer> <silent> m :MaildexCompose<CR>
nnoremap <buffer> <silent> q :call maildex#search#close()<CR>
augroup maildex_search
  autocmd! * <buffer>
  autocmd CursorMoved <buffer> call maildex#search#more()
  autocmd BufEnter <buffer> call maildex#search#entered()
augroup END
