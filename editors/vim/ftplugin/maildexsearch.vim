" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of a search list (maildex://search/QUERY), notmuch.el's search mode: <Plug>(maildex-search-...)
" mappings and their default keys (:help maildex-mappings), and the autocommands that draw more of
" the list as the cursor nears its end; all undone by b:undo_ftplugin.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
let s:cpo_save = &cpo
set cpo&vim

call maildex#map#plug('n', 'search-show', ':<C-u>call maildex#search#show()<CR>', '<CR>')
call maildex#map#plug('n', 'search-page', ':<C-u>call maildex#search#page_down()<CR>', '<Space>')
call maildex#map#plug('n', 'search-next', ':<C-u>call maildex#search#next(v:count1)<CR>', 'n')
call maildex#map#plug('n', 'search-previous', ':<C-u>call maildex#search#next(-v:count1)<CR>', 'p')
call maildex#map#plug('n', 'search-last', ':<C-u>call maildex#search#last(v:count)<CR>', 'G')
call maildex#map#plug('nx', 'search-tag-add', ':call maildex#search#tag_prompt("+")<CR>', '+')
call maildex#map#plug('nx', 'search-tag-remove', ':call maildex#search#tag_prompt("-")<CR>', '-')
call maildex#map#plug('nx', 'search-archive', ':call maildex#search#archive()<CR>', 'a')
call maildex#map#plug('n', 'search-unread', ':<C-u>call maildex#search#toggle_unread()<CR>', 'u')
call maildex#map#plug('n', 'search-tag-all', ':<C-u>call maildex#search#tag_all()<CR>', '*')
call maildex#map#plug('n', 'search-refresh', ':<C-u>call maildex#search#refresh()<CR>', '=')
call maildex#map#plug('n', 'search-order', ':<C-u>call maildex#search#toggle_order()<CR>', 'o')
call maildex#map#plug('n', 'search-filter', ':<C-u>call maildex#search#filter()<CR>', 'l')
call maildex#map#plug('n', 'search-filter-tag', ':<C-u>call maildex#search#filter_tag()<CR>', 't')
call maildex#map#plug('n', 'search-tree', ':<C-u>call maildex#search#tree()<CR>', 'Z')
call maildex#map#plug('n', 'search', ':<C-u>Maildex<Space>', 's', 0)
call maildex#map#plug('n', 'search-reply', ':<C-u>call maildex#search#reply(0)<CR>', 'r')
call maildex#map#plug('n', 'search-reply-all', ':<C-u>call maildex#search#reply(1)<CR>', 'R')
call maildex#map#plug('n', 'search-resume', ':<C-u>call maildex#search#resume()<CR>', 'e')
call maildex#map#plug('n', 'compose', ':<C-u>MaildexCompose<CR>', 'm')
call maildex#map#plug('n', 'search-close', ':<C-u>call maildex#search#close()<CR>', 'q')

augroup maildex_search
  autocmd! * <buffer>
  autocmd CursorMoved <buffer> call maildex#search#more()
  autocmd BufEnter <buffer> call maildex#search#entered()
augroup END
call maildex#map#undo("execute 'autocmd! maildex_search * <buffer>'")

let &cpo = s:cpo_save
unlet s:cpo_save
