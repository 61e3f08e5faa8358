" SPDX-License-Identifier: GPL-3.0-or-later
" The error buffer (maildex://errors, :MaildexErrors): q closes it, as every other maildex buffer;
" undone by b:undo_ftplugin.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
let s:cpo_save = &cpo
set cpo&vim

call maildex#map#plug('n', 'close', ':<C-u>call maildex#util#close()<CR>', 'q')

let &cpo = s:cpo_save
unlet s:cpo_save
