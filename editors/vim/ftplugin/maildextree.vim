" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of a tree of messages (maildex://tree/QUERY), notmuch.el's notmuch-tree: <Plug>(maildex-tree-...)
" mappings and their default keys (:help maildex-mappings), and the autocommand that draws more of
" the tree as the cursor nears its end; all undone by b:undo_ftplugin.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
let s:cpo_save = &cpo
set cpo&vim

call maildex#map#plug('n', 'tree-show', ':<C-u>call maildex#tree#show()<CR>', '<CR>')
call maildex#map#plug('n', 'tree-page', ':<C-u>call maildex#tree#page_down()<CR>', '<Space>')
call maildex#map#plug('n', 'tree-next', ':<C-u>call maildex#tree#next(v:count1)<CR>', 'n')
call maildex#map#plug('n', 'tree-previous', ':<C-u>call maildex#tree#next(-v:count1)<CR>', 'p')
call maildex#map#plug('n', 'tree-last', ':<C-u>call maildex#tree#last(v:count)<CR>', 'G')
call maildex#map#plug('n', 'tree-tag-add', ':<C-u>call maildex#tree#tag_prompt("+")<CR>', '+')
call maildex#map#plug('n', 'tree-tag-remove', ':<C-u>call maildex#tree#tag_prompt("-")<CR>', '-')
call maildex#map#plug('n', 'tree-archive', ':<C-u>call maildex#tree#archive(0)<CR>', 'a')
call maildex#map#plug('n', 'tree-archive-thread', ':<C-u>call maildex#tree#archive(1)<CR>', 'A')
call maildex#map#plug('n', 'tree-unread', ':<C-u>call maildex#tree#toggle_unread()<CR>', 'u')
call maildex#map#plug('n', 'tree-reply', ':<C-u>call maildex#tree#reply(0)<CR>', 'r')
call maildex#map#plug('n', 'tree-reply-all', ':<C-u>call maildex#tree#reply(1)<CR>', 'R')
call maildex#map#plug('n', 'tree-resume', ':<C-u>call maildex#tree#resume()<CR>', 'e')
call maildex#map#plug('n', 'tree-refresh', ':<C-u>call maildex#tree#refresh()<CR>', '=')
call maildex#map#plug('n', 'tree-order', ':<C-u>call maildex#tree#toggle_order()<CR>', 'o')
call maildex#map#plug('n', 'search', ':<C-u>Maildex<Space>', 's', 0)
call maildex#map#plug('n', 'compose', ':<C-u>MaildexCompose<CR>', 'm')
call maildex#map#plug('n', 'tree-close', ':<C-u>call maildex#tree#close()<CR>', 'q')

augroup maildex_tree
  autocmd! * <buffer>
  autocmd CursorMoved <buffer> call maildex#tree#more()
augroup END
call maildex#map#undo("execute 'autocmd! maildex_tree * <buffer>'")

let &cpo = s:cpo_save
unlet s:cpo_save
