" SPDX-License-Identifier: GPL-3.0-or-later
" Keys and folding of a thread (maildex://thread/ID), notmuch.el's show mode: <Plug>(maildex-show-...)
" mappings and their default keys (:help maildex-mappings), and the window-local fold options the
" drawing needs; all undone by b:undo_ftplugin.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
let s:cpo_save = &cpo
set cpo&vim

" Messages, long quotes and signatures are manual folds, labelled by maildex#show#foldtext().
setlocal foldmethod=manual foldtext=maildex#show#foldtext() foldminlines=0 foldenable
call maildex#map#undo('setlocal foldmethod< foldtext< foldminlines< foldenable<')

call maildex#map#plug('n', 'show-enter', ':<C-u>call maildex#show#enter()<CR>', '<CR>')
call maildex#map#plug('n', 'show-next', ':<C-u>call maildex#show#next(v:count1)<CR>', 'n')
call maildex#map#plug('n', 'show-previous', ':<C-u>call maildex#show#next(-v:count1)<CR>', 'p')
call maildex#map#plug('n', 'show-tag-add', ':<C-u>call maildex#show#tag_prompt("+")<CR>', '+')
call maildex#map#plug('n', 'show-tag-remove', ':<C-u>call maildex#show#tag_prompt("-")<CR>', '-')
call maildex#map#plug('n', 'show-archive', ':<C-u>call maildex#show#archive(0)<CR>', 'a')
call maildex#map#plug('n', 'show-archive-thread', ':<C-u>call maildex#show#archive(1)<CR>', 'A')
call maildex#map#plug('n', 'show-unread', ':<C-u>call maildex#show#toggle_unread()<CR>', 'u')
call maildex#map#plug('n', 'show-save', ':<C-u>call maildex#show#save()<CR>', 's')
call maildex#map#plug('n', 'show-open-part', ':<C-u>call maildex#show#open_part()<CR>', 'o')
call maildex#map#plug('n', 'show-reply', ':<C-u>call maildex#show#reply(0)<CR>', 'r')
call maildex#map#plug('n', 'show-reply-all', ':<C-u>call maildex#show#reply(1)<CR>', 'R')
call maildex#map#plug('n', 'show-forward', ':<C-u>call maildex#show#forward()<CR>', 'f')
call maildex#map#plug('n', 'show-resume', ':<C-u>call maildex#show#resume()<CR>', 'e')
call maildex#map#plug('n', 'show-tree', ':<C-u>call maildex#show#tree()<CR>', 'Z')
call maildex#map#plug('n', 'compose', ':<C-u>MaildexCompose<CR>', 'm')
call maildex#map#plug('n', 'show-refresh', ':<C-u>call maildex#show#refresh()<CR>', '=')
call maildex#map#plug('n', 'close', ':<C-u>call maildex#util#close()<CR>', ['q', 'x'])

let &cpo = s:cpo_save
unlet s:cpo_save
